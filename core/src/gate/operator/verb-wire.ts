// How an operator's verb travels between the CLI and the controller holding the lease (issue 10,
// docs/gate.md "What serve and the CLI call to carry the verbs out", docs/bus.md): the subject each
// controller answers on, which controller the CLI asks, who the lease-holder question names, and the
// sentences said when a request is odd, unanswered or could not be carried out. The Schemas of the
// request and the reply are records.ts's VerbRequest and VerbReply.
import { type LeaseSeen, leaseState } from "../../lease/view.ts"
import type { VerbReply } from "../plan/records.ts"
import type { Readable } from "../../outcome.ts"

/** A controller's name as one subject token: a host name's dots, a pid's slashes are not tokens. */
const subjectToken = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_")

/** The subject a controller answers verbs on: one per controller, so the CLI asks the one it means. */
export const verbSubject = (dot: string, controller: string): string =>
  `${dot}mesh.controller.${subjectToken(controller)}.verb`

/** Who a lease record names as its holder; a lease given back, or never held, names nobody. */
export const recordHolder = (seen: LeaseSeen, now: number): Readable<string | null> => {
  // No clock allowance: an expired holder is still named, as the one last known to act.
  const s = leaseState(seen, now, 0)
  if (s.state === "unreadable" || s.state === "unreachable") return { ok: false, why: s.why }
  return { ok: true, value: s.state === "held" || s.state === "expired" ? s.record.holder : null }
}

/** Which controller the CLI asks: `--controller`, else the lease record's holder. */
export const verbTarget = (
  named: string | undefined,
  seen: LeaseSeen,
  now: number,
): { readonly ok: true; readonly to: string } | { readonly ok: false; readonly said: string } => {
  if (named !== undefined && named !== "") return { ok: true, to: named }
  const h = recordHolder(seen, now)
  if (!h.ok)
    return {
      ok: false,
      said: `who holds the controller lease cannot be read, so the verb is not sent (name one with --controller): ${h.why}`,
    }
  if (h.value === null)
    return {
      ok: false,
      said: "no controller holds the lease now, so the verb is not sent: start serve, or name one with --controller",
    }
  return { ok: true, to: h.value }
}

/** No controller answered the request. */
export const unanswered = (to: string, subject: string, why: string): string =>
  `controller ${to} did not answer on ${subject} (${why}): it is not running, or not under that name; nothing was done`

/** A verb not carried out: refused (2), or not carried out for what could not be asked (3). */
const notDone = (code: 2 | 3, said: string): VerbReply => ({ ok: false, code, said })

/** A request the controller cannot read: refused, and the controller goes on answering. */
export const oddRequest = (problem: string): VerbReply =>
  notDone(2, `not a verb this controller can read, so nothing is done: ${problem}`)

/** A verb whose carrying out failed in the controller (a question it could not answer). */
export const notCarriedOut = (why: string): VerbReply =>
  notDone(3, `the verb could not be carried out, so nothing is done: ${why}`)

/**
 * A verb that did not get the gate's turn in time: a judging holds it, waiting on the store or the
 * bus (issue 27). Nothing of it was asked or done, so nothing is recorded: asked again, it is decided
 * on what is then.
 */
export const turnNotCome = (waitedMs: number): VerbReply =>
  notDone(
    3,
    `a judging has held the gate's turn for over ${Math.round(waitedMs / 1_000)} s (it waits on the store or the bus), so nothing is done: ask again`,
  )
