// Text as the UTF-8 bytes the wire sees: what URL escaping and SHA-256 are computed over. A lone
// surrogate, which UTF-8 cannot carry, is U+FFFD, as node's Buffer and TextEncoder write it.
import { utf8ToBytes } from "@noble/hashes/utils.js"

export const utf8Bytes = (text: string): Uint8Array => utf8ToBytes(text)
