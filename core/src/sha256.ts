// SHA-256 over UTF-8 text, as hex, and HMAC-SHA-256. The digest the mesh compares to answer "has
// this machine been sent what it should be" is a decision's input and output, so the core computes
// it itself rather than ask a shell. The hashing is @noble/hashes' (pure, audited; issue 11), not a
// hand-written copy: the one this replaced differed from node's on a lone surrogate.
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { utf8Bytes, utf8Pieces } from "./text/utf8.ts"

const hexDigits = Array.from("0123456789abcdef", (c) => c.charCodeAt(0))
// A digest is 32 bytes, 64 hex digits.
const hexCodes = new Array<number>(64)

/**
 * The bytes as lowercase hex, made as one flat string from its character codes: V8 keeps a text
 * appended piece by piece as the chain of its pieces, some 800 bytes where 64 characters do, and a
 * push keeps a digest for each of its 100,000 machines until it ends (issue 41).
 */
const hexOf = (bytes: Uint8Array): string => {
  for (let i = 0; i < 64; i++) hexCodes[i] = hexDigits[(bytes[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 15]!
  return String.fromCharCode(...hexCodes)
}

// One hasher, one buffer for the text's bytes (a piece at a time) and one for the digest, for every
// text hashed: a push hashes 100,000 declarations, and a hasher with its views and its result made
// for each is work and garbage that hashing does not need (issue 41). Each hash starts from a blank
// hasher's state, copied into the one kept.
const blank = sha256.create()
const hasher = sha256.create()
const digest = new Uint8Array(hasher.outputLen)
const textBytes = new Uint8Array(64 * 1024)

export const sha256Hex = (text: string): string => {
  const fresh = blank._cloneInto(hasher)
  utf8Pieces(text, textBytes, (bytes) => fresh.update(bytes))
  fresh.digestInto(digest)
  return hexOf(digest)
}

/** HMAC-SHA-256 of the text's UTF-8 under `key`, as hex. */
export const hmacSha256Hex = (key: Uint8Array, text: string): string => hexOf(hmac(sha256, key, utf8Bytes(text)))
