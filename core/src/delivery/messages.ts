// A machine's report of what a declaration came to, as the controller reads it off the bus: by this
// Schema and nothing else, live and replayed, against the store's limits every machine's message is
// read by (core/src/gate/messages/messages.ts).
import * as Schema from "effect/Schema"
import { decodeJson, list, messageLimits, Time } from "../gate/messages/messages.ts"
import { type Readable, value } from "../outcome.ts"
import { Name, parseRfc3339, text } from "../standings/word.ts"
import type { ReportRecord } from "./questions.ts"

export const ReportMessage = Schema.Struct({
  node: Name,
  digest: text(messageLimits.digestChars),
  sequence: Schema.Number.pipe(
    Schema.check(Schema.makeFilter((n: number) => (Number.isSafeInteger(n) && n >= -1) || "a whole number")),
  ),
  outcome: Schema.Literals(["applied", "failed", "refused"]),
  refused: Schema.optionalKey(Schema.NullOr(text(messageLimits.textChars))),
  failed: Schema.optionalKey(list(text(messageLimits.textChars))),
  at: Time,
  /**
   * The capabilities the machine has a detector for (seed 002's reportUnhostable). Optional: an
   * engine that never says is judged able to host everything (core/src/delivery/unhostable.ts).
   */
  detects: Schema.optionalKey(list(Name)),
})

export const readReport = (body: string): Readable<ReportRecord> => {
  const r = decodeJson(ReportMessage, body)
  if (!r.ok) return r
  const { at, failed, refused, detects, ...said } = r.value
  return value({
    ...said,
    at: parseRfc3339(at)!,
    failed: failed ?? [],
    ...(typeof refused === "string" ? { refused } : {}),
    ...(detects === undefined ? {} : { detects }),
  })
}
