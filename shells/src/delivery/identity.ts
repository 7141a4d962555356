// The controller's signing identity: an ed25519 key kept in the store, established at first use.
// Engines are given its public key out of band (`mesh-controller identity`), never from the bus.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto"
import { Effect } from "effect"
import { DeliveryStore } from "../store/delivery.ts"
import { Store, storeError } from "../store/postgres.ts"

export interface Signer {
  readonly sign: (body: string) => string
  readonly publicPem: string
  readonly fingerprint: string
}

const fingerprintOf = (publicPem: string): string =>
  createHash("sha256")
    .update(createPublicKey(publicPem).export({ type: "spki", format: "der" }))
    .digest("hex")

/** The controller's signer: the key kept in the store, or a new one kept there first (the first one kept wins). */
export const establish = Effect.fn("Identity.establish")(function* () {
  const delivery = yield* DeliveryStore
  const { url } = yield* Store
  let kept = yield* delivery.identity
  if (kept === undefined) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    kept = yield* delivery.keepIdentity({
      privatePem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
      publicPem: publicKey.export({ type: "spki", format: "pem" }) as string,
    })
  }
  const { privatePem, publicPem } = kept
  // A key kept that cannot be read is a store that cannot be read, said as every other.
  const key = yield* Effect.try({ try: () => createPrivateKey(privatePem), catch: storeError(url) })
  return {
    sign: (body) => sign(null, Buffer.from(body, "utf8"), key).toString("base64"),
    publicPem,
    fingerprint: yield* Effect.try({ try: () => fingerprintOf(publicPem), catch: storeError(url) }),
  } satisfies Signer
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
