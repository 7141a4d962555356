// The controller's signing identity: an ed25519 key kept in the store, established at first use.
// Engines are given its public key out of band (`mesh-controller identity`), never from the bus.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from "node:crypto"
import type { Sql } from "./store/postgres.ts"
import { keepIdentity, loadIdentity } from "./store/delivery.ts"

export interface Signer {
  readonly sign: (body: string) => string
  readonly publicPem: string
  readonly fingerprint: string
}

export const fingerprintOf = (publicPem: string): string =>
  createHash("sha256").update(createPublicKey(publicPem).export({ type: "spki", format: "der" })).digest("hex")

export const establish = async (sql: Sql): Promise<Signer> => {
  let kept = await loadIdentity(sql)
  if (kept === undefined) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    kept = await keepIdentity(sql, privateKey.export({ type: "pkcs8", format: "pem" }) as string, publicKey.export({ type: "spki", format: "pem" }) as string)
  }
  const key = createPrivateKey(kept.privatePem)
  return {
    sign: (body) => sign(null, Buffer.from(body, "utf8"), key).toString("base64"),
    publicPem: kept.publicPem,
    fingerprint: fingerprintOf(kept.publicPem),
  }
}

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
