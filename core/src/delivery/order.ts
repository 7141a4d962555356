// The order a push sends in (novox/hq issue 249): the machine holding the bus first, then the
// grants for every machine being sent, then every other declaration.
//
// A merge gave a module a new state; its bundle reached every machine within a minute, and the
// machines' permissions on the bus did not include the state until somebody pushed by hand: the code
// arrived before the right to use it. **The holder's declaration goes before the grants**, though:
// the bus's user list travels in it, and the controller's own right to issue memberships is in that
// list; grants first would hold the very declaration that allows them.
import type { Index } from "./compose.ts"

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
  const present = rest.length !== names.length
  if (!present && !behind) return names
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
  if (holder === undefined) return { holder, behind: false }
  if (names.includes(holder)) return { holder, behind: false }
  if (!index.userList.ok) return { holder, behind: true }
  return { holder, behind: index.userList.text !== "" && index.userList.digest !== listDigest }
}

// ---- delivery: a plan over two acts, grant and declare ----

export const grantsWord =
  "what the machines' modules may do on the bus could not be issued, and code sent before its grants is refused there"

export type DeliveryAct =
  | { readonly act: "declare"; readonly node: string }
  | { readonly act: "grant"; readonly nodes: ReadonlyArray<string> }

export type ActOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: string }
  /** A grant that failed for some machines: by machine, why. */
  | { readonly ok: false; readonly refused: Readonly<Record<string, string>> }

export interface Delivery {
  readonly holder: string | undefined
  readonly sending: ReadonlyArray<string>
  readonly stage: "holder" | "grant" | "rest" | "done"
  /** The declarations after the grant, and how many of them have been sent. */
  readonly queue: ReadonlyArray<string>
  readonly position: number
  readonly held: Readonly<Record<string, string>>
  readonly grantFailure: string | undefined
  readonly error: string | undefined
}

export interface DeliveryStep {
  readonly delivery: Delivery
  readonly next: DeliveryAct | undefined
}

const sortedNames = (r: Readonly<Record<string, string>>) => Object.keys(r).sort()

const refusedText = (held: Readonly<Record<string, string>>) => {
  const names = sortedNames(held)
  return `the memberships of ${names.join(", ")} could not be issued; the first: ${held[names[0]!]}`
}

const nextOf = (d: Delivery): DeliveryStep => {
  if (d.stage === "holder") return { delivery: d, next: { act: "declare", node: d.holder! } }
  if (d.stage === "grant") return { delivery: d, next: { act: "grant", nodes: d.sending } }
  if (d.stage === "rest" && d.position < d.queue.length)
    return { delivery: d, next: { act: "declare", node: d.queue[d.position]! } }
  return { delivery: finish(d), next: undefined }
}

// The end: what was held back by a grant is an error naming those machines, so the rollout that
// asked is not marked sent and is tried again.
const finish = (d: Delivery): Delivery => {
  if (d.error !== undefined || d.stage === "done") return { ...d, stage: "done" }
  const rest = d.sending.filter((n) => n !== d.holder)
  if (d.grantFailure !== undefined) {
    return {
      ...d,
      stage: "done",
      error:
        rest.length === 0
          ? `${grantsWord}: ${d.grantFailure}`
          : `${grantsWord}; ${rest.join(", ")} not sent: ${d.grantFailure}`,
    }
  }
  const notSent = rest.filter((n) => n in d.held)
  if (notSent.length > 0)
    return { ...d, stage: "done", error: `${grantsWord}; ${notSent.join(", ")} not sent: ${refusedText(d.held)}` }
  // Only the holder's own memberships failed, and it was sent before them.
  if (sortedNames(d.held).length > 0) return { ...d, stage: "done", error: `${grantsWord}: ${refusedText(d.held)}` }
  return { ...d, stage: "done" }
}

export const startDelivery = (holder: string | undefined, sending: ReadonlyArray<string>): DeliveryStep => {
  const base: Delivery = {
    holder,
    sending,
    stage: "grant",
    queue: [],
    position: 0,
    held: {},
    grantFailure: undefined,
    error: undefined,
  }
  if (sending.length === 0) return { delivery: { ...base, stage: "done" }, next: undefined }
  const holderSent = holder !== undefined && sending.includes(holder)
  return nextOf({ ...base, holder: holderSent ? holder : undefined, stage: holderSent ? "holder" : "grant" })
}

/** The outcome of the act asked for; answers the next act, or none when the delivery is over. */
export const afterAct = (step: DeliveryStep, outcome: ActOutcome): DeliveryStep => {
  const d = step.delivery
  const act = step.next
  if (act === undefined) return step
  if (act.act === "declare") {
    // A declaration that cannot be sent stops the delivery; what was sent stays sent.
    if (!outcome.ok)
      return {
        delivery: { ...d, stage: "done", error: "error" in outcome ? outcome.error : refusedText(outcome.refused) },
        next: undefined,
      }
    if (d.stage === "holder") return nextOf({ ...d, stage: "grant" })
    return nextOf({ ...d, position: d.position + 1 })
  }
  const held = !outcome.ok && "refused" in outcome ? outcome.refused : {}
  const grantFailure = !outcome.ok && "error" in outcome ? outcome.error : undefined
  // A grant failure that names no machine holds back every machine but the holder, already sent.
  const queue = grantFailure !== undefined ? [] : d.sending.filter((n) => n !== d.holder && !(n in held))
  return nextOf({ ...d, stage: "rest", held, grantFailure, queue, position: 0 })
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
