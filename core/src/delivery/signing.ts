// The controller's signing identity, as `serve` says it at start (seed 002: "Established at start
// rather than on first use. A control plane that cannot sign is one whose declarations every node
// correctly refuses, and that should be a startup failure rather than something discovered at the
// first declaration.").
import { utf8Bytes } from "../text/utf8.ts"

/** The line `serve` says once its key is established: the fingerprint's first 16 hex digits, as the seed prints it. */
export const signingSaid = (fingerprint: string): string => `signing as ${fingerprint.slice(0, 16)}`

/** Why `serve` does not start when it cannot sign. */
export const cannotSignSaid = (why: string): string =>
  `this controller cannot sign (${why}), and every machine would refuse what it declares: it does not start`

/**
 * Whether a declaration's envelope fits in one message of the bus (its server's max_payload), said
 * before a sequence number is taken (issue 28): a 30 MB declaration was once blamed on the store, and
 * used up a sequence number the machine never saw.
 */
export const overTheBusLimit = (d: { readonly node: string; readonly bytes: number; readonly limit: number }) =>
  d.bytes <= d.limit
    ? undefined
    : `${d.node}'s declaration would be ${d.bytes} bytes on the bus, over the ${d.limit} bytes it takes in one message (its max_payload): nothing was sent and no sequence number was taken`

/** An envelope's bytes beside its body's: an ed25519 signature (88) and the key's fingerprint (64), as sent. */
const envelopeRest = JSON.stringify({ body: "", signature: "x".repeat(88), key: "x".repeat(64) }).length - 2

/**
 * The bytes a drafted declaration's envelope would be on the bus under `sequence`: its body escaped
 * (the draft's head, the digits, the closing brace) and the rest, counted from the draft, so the
 * declaration is measured without being composed again (issue 41).
 */
const envelopeBytes = (head: string, sequence: number): number =>
  utf8Bytes(JSON.stringify(head)).length + JSON.stringify(sequence).length + 1 + envelopeRest

/**
 * overTheBusLimit for a drafted declaration under the largest sequence it can carry, so the one sent
 * is never larger. One whose every character escaped as six bytes would still fit is not measured
 * (`measure`, given only by a test that counts the measurings).
 */
export const draftOverTheBusLimit = (
  node: string,
  head: string,
  limit: number,
  measure: (head: string, sequence: number) => number = envelopeBytes,
): string | undefined => {
  const digits = JSON.stringify(Number.MAX_SAFE_INTEGER).length
  if ((head.length + digits + 1) * 6 + 2 + envelopeRest <= limit) return undefined
  return overTheBusLimit({ node, bytes: measure(head, Number.MAX_SAFE_INTEGER), limit })
}
