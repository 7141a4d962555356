// One recorded pass driven through the provisioner's core on a copy of what the replay heard, so the
// state replayed from is left as it was: for tests that replay a pass at a time.
import type { AnswerFact, Provider, Settings } from "@mesh-core/core/provisioner/model"
import type { Call } from "@mesh-core/core/provisioner/questions"
import { type PassGroup, type ReplayState, replayPassInPlace } from "@mesh-core/core/provisioner/replay"

/** Drives the core through one recorded pass; answers the decisions it made, in order. */
export const replayPass = (
  state: ReplayState,
  group: PassGroup,
  settings: Settings,
  provider: Provider,
  cutShort = false,
) => {
  const heard = new Map<Call, Map<string, AnswerFact>>([...state.heard].map(([call, byAs]) => [call, new Map(byAs)]))
  return replayPassInPlace({ ...state, heard }, group, settings, provider, cutShort)
}
