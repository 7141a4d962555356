// The core's SHA-256 against node's crypto, over any text.
import { createHash } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { sha256Hex } from "@mesh-core/core/sha256"

describe("sha256Hex", () => {
  it("is node's SHA-256 of the text's UTF-8, for any text and at every block boundary", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"))
    }), { numRuns: 500 })
    for (const n of [0, 55, 56, 63, 64, 65, 119, 120]) expect(sha256Hex("a".repeat(n))).toBe(createHash("sha256").update("a".repeat(n)).digest("hex"))
  })
})
