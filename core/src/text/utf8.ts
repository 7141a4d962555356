// Text as the UTF-8 bytes the wire sees: what URL escaping and SHA-256 are computed over. A lone
// surrogate, which UTF-8 cannot carry, is U+FFFD, as node's Buffer and TextEncoder write it.

// The encoder every JavaScript runtime has (WHATWG Encoding), declared here because the core's
// types name no runtime. One for every call: noble's utf8ToBytes makes an encoder, a copy of its
// bytes and a wipe of the first for each text, and a push hashes 100,000 declarations (issue 41).
declare const TextEncoder: new () => {
  encode(text: string): Uint8Array
  encodeInto(text: string, into: Uint8Array): { read: number; written: number }
}
const encoder = new TextEncoder()

export const utf8Bytes = (text: string): Uint8Array => encoder.encode(text)

/**
 * The text's UTF-8 handed to `each` a piece at a time, each written into `scratch` (4 bytes or more)
 * and good until the next: for a caller that reads the bytes at once (hashing), so neither a push's
 * 100,000 declarations nor the bus holder's, tens of megabytes at that size, is an array made and
 * dropped (issue 41). A piece is `units` UTF-16 units, one more where it would end between the halves
 * of a pair, so no piece splits a character: a unit is at most 3 bytes, a pair 4, a piece 3 × units + 1.
 */
export const utf8Pieces = (text: string, scratch: Uint8Array, each: (bytes: Uint8Array) => void): void => {
  const units = Math.floor((scratch.length - 1) / 3)
  const pairsAt = (b: number) =>
    (text.charCodeAt(b - 1) & 0xfc00) === 0xd800 && (text.charCodeAt(b) & 0xfc00) === 0xdc00
  const start = (k: number) => k * units + (pairsAt(k * units) ? 1 : 0)
  for (const k of Array(Math.ceil(text.length / units)).keys())
    each(scratch.subarray(0, encoder.encodeInto(text.slice(start(k), start(k + 1)), scratch).written))
}
