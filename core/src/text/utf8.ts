// Text as the UTF-8 bytes the wire sees: what URL escaping and SHA-256 are computed over. A lone
// surrogate, which UTF-8 cannot carry, is U+FFFD, as node's Buffer and TextEncoder write it.

// The encoder every JavaScript runtime has (WHATWG Encoding), declared here because the core's
// types name no runtime. One for every call: noble's utf8ToBytes made an encoder, a copy of its
// bytes and a wipe of the first for each text, a tenth of hashing a push's 100,000 declarations (issue 41).
declare const TextEncoder: new () => { encode(text: string): Uint8Array }
const encoder = new TextEncoder()

export const utf8Bytes = (text: string): Uint8Array => encoder.encode(text)
