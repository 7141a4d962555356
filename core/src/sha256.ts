// SHA-256 over UTF-8 text, as hex, and HMAC-SHA-256. The digest the mesh compares to answer "has
// this machine been sent what it should be" is a decision's input and output, so the core computes
// it itself rather than ask a shell. The hashing is @noble/hashes' (pure, audited; issue 11), not a
// hand-written copy: the one this replaced differed from node's on a lone surrogate.
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { utf8Bytes } from "./text/utf8.ts"

const hexPairs = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"))

/**
 * The bytes as lowercase hex, joined into one flat string: noble's bytesToHex appends a pair at a
 * time, and a digest kept as that chain of 32 pieces held some 800 bytes where 64 characters
 * do, for each of a push's 100,000 machines until it ended (issue 41).
 */
const hexOf = (bytes: Uint8Array): string => {
  const pairs: Array<string> = []
  for (const b of bytes) pairs.push(hexPairs[b]!)
  return pairs.join("")
}

export const sha256Hex = (text: string): string => hexOf(sha256(utf8Bytes(text)))

/** HMAC-SHA-256 of the text's UTF-8 under `key`, as hex. */
export const hmacSha256Hex = (key: Uint8Array, text: string): string => hexOf(hmac(sha256, key, utf8Bytes(text)))
