// A SCRAM-SHA-256 verifier for a password, computed here as psql's \password does (RFC 5802 and
// RFC 7677, PostgreSQL's own `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`), so the
// backend is sent a verifier and never the password (issue 14). A password is then never SQL text
// whatever `standard_conforming_strings` says, and one shaped like `md5` + 32 hex digits is stored
// as the verifier of those characters rather than taken for an md5 hash.
//
// No npm package computes PostgreSQL verifiers and is maintained (the registry has SCRAM-SHA-1 SASL
// clients only); node:crypto's pbkdf2, HMAC and SHA-256 are the well-kept library, and this file
// only composes them as the RFC says (docs/dependencies.md).
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto"

/** PostgreSQL's default (scram_iterations) and psql's. */
const scramIterations = 4096
const saltBytes = 16

export interface ScramKeys {
  readonly iterations: number
  readonly salt: Buffer
}

/**
 * The verifier of `password` under `salt`. The password is taken as its UTF-8 bytes, as the
 * provider's own client (postgres.js) sends it at login; for the printable ASCII passwords the mesh
 * mints, SASLprep (which libpq and the server apply) leaves them as they are, so both agree.
 */
export const scramVerifier = (
  password: string,
  keys: ScramKeys = { iterations: scramIterations, salt: randomBytes(saltBytes) },
): string => {
  const salted = pbkdf2Sync(Buffer.from(password, "utf8"), keys.salt, keys.iterations, 32, "sha256")
  const clientKey = createHmac("sha256", salted).update("Client Key").digest()
  const storedKey = createHash("sha256").update(clientKey).digest()
  const serverKey = createHmac("sha256", salted).update("Server Key").digest()
  return `SCRAM-SHA-256$${keys.iterations}:${keys.salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`
}

/** What a verifier may be made of: digits, base64 and the separators; never a quote or a backslash. */
export const verifierShape = /^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/

/** The iterations and salt of a verifier PostgreSQL stored, to compute another under the same. */
export const keysOf = (verifier: string): ScramKeys | undefined => {
  const m = /^SCRAM-SHA-256\$([0-9]+):([A-Za-z0-9+/=]+)\$/.exec(verifier)
  return m === null ? undefined : { iterations: Number(m[1]), salt: Buffer.from(m[2]!, "base64") }
}
