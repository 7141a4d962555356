// The controller's signing identity: an ed25519 key kept in the store, established by `serve` at start (seed 002)
// or by the first command that needs it. Engines are given its public key out of band (`mesh-controller identity`), never from the bus.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto"
import { cannotSignSaid, signingSaid } from "@mesh-core/core/delivery/signing"
import { errorText } from "@mesh-core/core/text/error-text"
import { Data, Effect, Runtime } from "effect"
import { say } from "../journal.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { DeliveryStore } from "../store/delivery.ts"

/** The key the store keeps cannot be used: a corrupt or foreign PEM. Not a store that does not answer. */
class KeyUnusable extends Data.TaggedError("KeyUnusable")<{
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `the controller's signing key kept in the store cannot be used: ${this.reason}`
  }
}

/** `serve` refused at start: it could not sign (seed 002). */
class CannotSign extends Data.TaggedError("CannotSign")<{ readonly said: string; readonly cause?: unknown }> {
  override readonly [Runtime.errorExitCode] = 1
  override get message(): string {
    return this.said
  }
}

export interface Signer {
  readonly sign: (body: string) => string
  readonly publicPem: string
  readonly fingerprint: string
}

const fingerprintOf = (publicPem: string): string =>
  createHash("sha256")
    .update(createPublicKey(publicPem).export({ type: "spki", format: "der" }))
    .digest("hex")

/** The controller's signer: the key kept in `delivery`, or a new one kept there first (the first one kept wins). */
export const establishIn = Effect.fn("Identity.establish")(function* (delivery: DeliveryStore["Service"]) {
  let kept = yield* delivery.identity
  if (kept === undefined) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    kept = yield* delivery.keepIdentity({
      privatePem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
      publicPem: publicKey.export({ type: "spki", format: "pem" }) as string,
    })
  }
  const { privatePem, publicPem } = kept
  const unusable = (e: unknown) => new KeyUnusable({ reason: errorText(e), cause: e })
  const key = yield* Effect.try({ try: () => createPrivateKey(privatePem), catch: unusable })
  return {
    sign: (body) => sign(null, Buffer.from(body, "utf8"), key).toString("base64"),
    publicPem,
    fingerprint: yield* Effect.try({ try: () => fingerprintOf(publicPem), catch: unusable }),
  } satisfies Signer
})

/** The controller's signer, from the delivery store given (`establishIn`). */
export const establish = () =>
  Effect.gen(function* () {
    return yield* establishIn(yield* DeliveryStore)
  })

/**
 * `serve`'s identity, established at start (seed 002) and said in the seed's line. A store that does
 * not answer is said once and waited out, as every worker waits; a key that cannot be used refuses
 * the start.
 */
export const establishAtStart = Effect.gen(function* () {
  const outage = yield* makeOutage("controller")
  const signer = yield* establish().pipe(
    Effect.tapError((e) => (e._tag === "StoreUnreadable" ? outage.failed(e) : Effect.void)),
    Effect.retry({ schedule: untilItAnswers, while: (e) => e._tag === "StoreUnreadable" }),
    Effect.mapError((e) => new CannotSign({ said: cannotSignSaid(e.message), cause: e })),
  )
  yield* outage.answered
  yield* say(`[controller] ${signingSaid(signer.fingerprint)}`)
})

export const verifier = (publicPem: string): ((body: string, signature: string) => boolean) => {
  const key: KeyObject = createPublicKey(publicPem)
  return (body, signature) => {
    try {
      return verify(null, Buffer.from(body, "utf8"), key, Buffer.from(signature, "base64"))
    } catch {
      return false
    }
  }
}
