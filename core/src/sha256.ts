// SHA-256 over UTF-8 text, as hex, and HMAC-SHA-256. The digest the mesh compares to answer "has
// this machine been sent what it should be" is a decision's input and output, so the core computes
// it itself rather than ask a shell. The hashing is @noble/hashes' (pure, audited; issue 11), not a
// hand-written copy: the one this replaced differed from node's on a lone surrogate.
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { utf8Bytes } from "./text/utf8.ts"

export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8Bytes(text)))

/** HMAC-SHA-256 of the text's UTF-8 under `key`, as hex. */
export const hmacSha256Hex = (key: Uint8Array, text: string): string => bytesToHex(hmac(sha256, key, utf8Bytes(text)))
