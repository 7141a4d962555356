// The order a push sends in (novox/hq issue 249): the machine holding the bus first, then the
// grants for every machine being sent, then every other declaration.
//
// A merge gave a module a new state; its bundle reached every machine within a minute, and the
// machines' permissions on the bus did not include the state until somebody pushed by hand: the code
// arrived before the right to use it. **The holder's declaration goes before the grants**, though:
// the bus's user list travels in it, and the controller's own right to issue memberships is in that
// list; grants first would hold the very declaration that allows them.
import type { Index } from "./compose.ts"
import type { ActOutcomeRecord } from "./questions.ts"

/**
 * The machines to send in the order a grant needs: the holder moved to the front when it is among
 * them; not among them, added only when it is behind; the order of the rest kept.
 */
export const brokerFirst = (
  names: ReadonlyArray<string>,
  holder: string | undefined,
  behind: boolean,
): ReadonlyArray<string> => {
  if (holder === undefined || holder === "") return names
  const rest = names.filter((n) => n !== holder)
  if (rest.length === names.length && !behind) return names
  return [holder, ...rest]
}

/**
 * Whether the machine holding the bus must be sent first even though it was not asked: the user
 * list composed now against the digest of the one it runs (runningList) or, within a push that sent
 * it already, the one this push sent it, its report of that send not in yet (issue 057) — the list
 * alone, not the whole declaration, so a change pending there for other reasons is not dragged into
 * every send. An empty list is never behind; what cannot be worked out is behind, never "not
 * behind" (seed 004).
 */
export const holderBehind = (
  index: Index,
  names: ReadonlyArray<string>,
  listDigest: string | undefined,
): { readonly holder: string | undefined; readonly behind: boolean } => {
  const holder = index.holder
  if (holder === undefined || names.includes(holder)) return { holder, behind: false }
  const list = index.userList
  return { holder, behind: !list.ok || (list.text !== "" && list.digest !== listDigest) }
}

// ---- delivery: a plan over two acts, grant and declare ----

export const grantsWord =
  "what the machines' modules may do on the bus could not be issued, and code sent before its grants is refused there"

export type DeliveryAct =
  | { readonly act: "declare"; readonly node: string }
  | { readonly act: "grant"; readonly nodes: ReadonlyArray<string> }

/** Done, or why not; a grant that failed for some machines says by machine why (`refused`). */
export type ActOutcome = typeof ActOutcomeRecord.Type

const refusedText = (held: Readonly<Record<string, string>>) => {
  const names = Object.keys(held).sort()
  return `the memberships of ${names.join(", ")} could not be issued; the first: ${held[names[0]!]}`
}

/**
 * The acts of one delivery in the order issue 249 asks, a sender driving it one act at a time: each
 * act's outcome, sent back with `next`, decides the next. It returns the error the delivery ends
 * with: a declaration that cannot be sent stops it (what was sent stays sent); what a grant held back
 * is an error naming those machines, so the rollout that asked is not marked sent and is tried again.
 */
export function* deliveryActs(
  holder: string | undefined,
  sending: ReadonlyArray<string>,
): Generator<DeliveryAct, string | undefined, ActOutcome> {
  if (sending.length === 0) return undefined
  const notDeclared = (outcome: Exclude<ActOutcome, { ok: true }>) =>
    "error" in outcome ? outcome.error : refusedText(outcome.refused)
  if (holder !== undefined && sending.includes(holder)) {
    const declared = yield { act: "declare", node: holder }
    if (!declared.ok) return notDeclared(declared)
  }
  const granted = yield { act: "grant", nodes: sending }
  const rest = sending.filter((n) => n !== holder)
  // A grant failure that names no machine holds back every machine but the holder, already sent.
  if (!granted.ok && "error" in granted)
    return rest.length === 0
      ? `${grantsWord}: ${granted.error}`
      : `${grantsWord}; ${rest.join(", ")} not sent: ${granted.error}`
  const held = granted.ok ? {} : granted.refused
  for (const node of rest) {
    if (node in held) continue
    const declared = yield { act: "declare", node }
    if (!declared.ok) return notDeclared(declared)
  }
  const notSent = rest.filter((n) => n in held)
  if (notSent.length > 0) return `${grantsWord}; ${notSent.join(", ")} not sent: ${refusedText(held)}`
  // Only the holder's own memberships failed, and it was sent before them.
  return Object.keys(held).length > 0 ? `${grantsWord}: ${refusedText(held)}` : undefined
}

// ---- the bus machine judged against what it reports running (seed 004's listBehind) ----

/**
 * The digest of the user list the holder runs, from its report and what it was last sent: the report
 * of an applied declaration that is the one last sent carries that send's list; anything else
 * (failed, refused, an older declaration, nothing reported) runs no list known to be the current one,
 * and holderBehind judges it behind.
 */
export const runningList = (
  report: { readonly digest: string; readonly outcome: string } | undefined,
  sent: { readonly digest: string; readonly busUsersDigest?: string | undefined } | undefined,
): string | undefined =>
  report?.outcome === "applied" && sent !== undefined && sent.digest === report.digest ? sent.busUsersDigest : undefined
