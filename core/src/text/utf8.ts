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
 * The text's UTF-8 written into `scratch` when it fits there, as a view of it good until the next
 * write; else in an array of its own. For a caller that reads the bytes at once (hashing), so a push's
 * 100,000 declarations are not each an array made and dropped (issue 41).
 */
export const utf8BytesIn = (text: string, scratch: Uint8Array): Uint8Array => {
  const { read, written } = encoder.encodeInto(text, scratch)
  return read === text.length ? scratch.subarray(0, written) : encoder.encode(text)
}
