// The flush after a named push (novox/hq issue 057, ADR 0083): **a named push leaves the mesh
// consistent, not just the machine it named.** Assigning a cross-node consumer changes the
// provider's declaration, so after the named machine is current other machines can be behind as a
// consequence: their declaration now differs from what they were last sent. Those are flushed too,
// by name, in the push's own output.
//
// Compared against what each machine was last SENT (the only durable signal: what changed it usually
// happened before the push ran), composed under the sequence it was last sent, with what the open
// plans hold (core/src/delivery/held.ts) and without the modules it cannot host: so a machine behind
// only because a plan's build waits for its gate is not behind at all, and one a plan leaves out is
// named and left. Bounded: a flushed send may itself change another machine, so it converges over a
// few rounds, and what is still behind after them is said.
import type { Index } from "./compose.ts"
import { behindSent, type Sent } from "./behind.ts"

/** How many rounds a named push flushes before it says what is still behind. */
export const flushRounds = 3

/**
 * The machines to flush this round, what is said, and the machines this round dealt with (flushed, or
 * named and left): handled in the rounds after it, so each is said once.
 */
export const flushBehind = (
  indexOf: (node: string) => Index,
  nodes: ReadonlyArray<string>,
  sent: ReadonlyMap<string, Sent>,
  handled: ReadonlySet<string>,
  left: ReadonlyMap<string, string>,
  round: number,
) => {
  const behind: Array<string> = []
  const said: Array<string> = []
  const leftSaid: Array<string> = []
  for (const node of nodes) {
    if (handled.has(node)) continue
    // One that cannot be worked out is a different problem, with a different remedy (`push` names it).
    if (behindSent(indexOf(node), node, sent.get(node)) !== true) continue
    const why = left.get(node)
    if (why !== undefined) {
      // Not "a push that names it sends it": the plan leaves it out of every push until its gate passes.
      said.push(`${node} is behind as a consequence of this push and is not flushed: ${why}`)
      leftSaid.push(node)
      continue
    }
    behind.push(node)
  }
  if (behind.length === 0) return { flush: [], said, handled: leftSaid }
  if (round >= flushRounds) {
    said.push(
      `still behind after ${flushRounds} rounds of flushing: ${behind.join(", ")} — \`push --behind\` sends them`,
    )
    return { flush: [], said, handled: leftSaid }
  }
  said.push(`flushing ${behind.length} machine(s) behind as a consequence of this push: ${behind.join(", ")}`)
  return { flush: behind, said, handled: [...leftSaid, ...behind] }
}
