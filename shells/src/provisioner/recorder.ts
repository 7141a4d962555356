// Writing the facts fed to the core in the fact-log format. A password never reaches the file: a
// secret read is written as a fingerprint of what was read (see core/src/facts/log.ts).
import { createHash } from "node:crypto"
import { headerLine, lineOf } from "@mesh-core/core/facts/log"
import type { Fact, Provider, Settings } from "@mesh-core/core/provisioner/model"
import { passwordForms } from "@mesh-core/core/provisioner/scrub"
import { passwordIn } from "@mesh-core/core/provisioner/pass"

export const fingerprint = (password: string): string =>
  `sha256:${createHash("sha256").update(password).digest("hex").slice(0, 16)}`

/** Turns facts into log lines, one at a time; remembers the document last written in full. */
export const makeRecorder = (provider: Provider, settings: Settings, recorded: Date) => {
  let lastDocument: string | undefined
  const forms = new Map<string, ReadonlyArray<string>>()
  return {
    header: (): string => JSON.stringify(headerLine(provider, settings, recorded.toISOString())),
    line: (fact: Fact): string => {
      if (fact.fact === "secret" && fact.read === "ok") forms.set(fact.as, passwordForms(passwordIn(fact.password)))
      const known = fact.fact === "pass" ? [] : forms.get(fact.as) ?? []
      const line = JSON.stringify(lineOf(fact, fingerprint, lastDocument, known))
      if (fact.fact === "pass" && fact.document.read === "ok") lastDocument = fact.document.text
      return line
    },
  }
}
