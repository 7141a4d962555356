// A pass run to its end, every word gathered: for tests that want a pass's words whole, through the
// one pure driver the live loop and a replay use (core/src/provisioner/pass.ts drivePass).
import type { Announcement, AnswerFact, Provider, Said, Settings } from "@mesh-core/core/provisioner/model"
import { drivePass, type PassFact, type ProvisionerState } from "@mesh-core/core/provisioner/pass"
import type { Request } from "@mesh-core/core/provisioner/questions"

export const runPass = (
  state: ProvisionerState,
  pass: PassFact,
  settings: Settings,
  provider: Provider,
  answer: (request: Request) => AnswerFact,
) => {
  const said: Array<Said> = []
  const announced: Array<Announcement> = []
  const ran = drivePass(state, pass, settings, provider, {
    answer,
    said: (s) => void said.push(s),
    announced: (a) => void announced.push(a),
  })
  // Never cut short: every question is answered.
  return { state: ran ?? state, said, announced }
}
