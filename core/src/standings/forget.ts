// A person clearing a standing nobody will clear (issue 14): a consumer withdrawn while its
// provider was down, or a `withdrawn` word lost with a provider's outbox. The forget is kept as a
// standing of its own, dated when it was made and saying who made it, so it orders like a word: an
// older word delivered late cannot bring the standing back, and a newer word still counts.
import type { Kept } from "./standings.ts"

export interface ForgetAsk {
  readonly provider: string
  readonly consumer: string
  /** The provider's machine; needed only when the provider fails the consumer from more than one. */
  readonly providerNode: string | undefined
  readonly by: string
  readonly at: number
}

export type Forgetting =
  | { readonly ok: true; readonly forgotten: Kept; readonly was: Kept }
  | { readonly ok: false; readonly why: string }

const withoutError = ({ error: _, ...rest }: Kept): Kept => rest

/** Which failing standing a forget clears, out of the failing standings kept for its provider and consumer. */
export const forget = (failing: ReadonlyArray<Kept>, ask: ForgetAsk): Forgetting => {
  const ofIt = failing.filter(
    (k) =>
      k.state === "failing" &&
      k.provider === ask.provider &&
      k.consumer === ask.consumer &&
      (ask.providerNode === undefined || k.providerNode === ask.providerNode),
  )
  const whose = `${ask.provider}${ask.providerNode === undefined ? "" : ` on ${ask.providerNode}`} for ${ask.consumer}`
  if (ask.by.trim() === "") return { ok: false, why: "--by: who forgets it must be said (it is recorded)" }
  if (ofIt.length === 0) return { ok: false, why: `no failing standing of ${whose} to forget` }
  if (ofIt.length > 1)
    return {
      ok: false,
      why: `${whose} fails from ${ofIt.length} machines (${ofIt.map((k) => k.providerNode).join(", ")}): say which with --node`,
    }
  const was = ofIt[0]!
  // Dated after the word it forgets even when the controller's clock is behind the provider's:
  // otherwise the forget would be older than what it clears and change nothing.
  const at = Math.max(ask.at, was.at + 1)
  return {
    ok: true,
    was,
    // Its error is the provider's, not the forget's: not kept.
    forgotten: { ...withoutError(was), state: "forgotten", at, why: "forgotten", by: ask.by },
  }
}
