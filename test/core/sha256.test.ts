// The core's SHA-256 and HMAC against node's crypto, over any text: lone surrogates included, where
// the hand-written hash this replaced gave another digest than node (issue 11).
import { createHash, createHmac } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { goQueryEscape } from "@mesh-core/core/provisioner/scrub"
import { hmacSha256Hex, sha256Hex } from "@mesh-core/core/sha256"
import { utf8Bytes, utf8Pieces } from "@mesh-core/core/text/utf8"

// Any UTF-16 code unit, so lone surrogates come up often.
const anyText = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
})
// Texts dense in pairs, halves of pairs alone and characters of every UTF-8 length, so a piece's
// boundary falls everywhere among them.
const denseText = fc.string({
  unit: fc.constantFrom("a", "é", "€", "\ud83d", "\ude00", "\ud83d\ude00"),
  maxLength: 60,
})

describe("sha256Hex", () => {
  it("is node's SHA-256 of the text's UTF-8, for any text and at every block boundary", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), anyText), (text) => {
        expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"))
      }),
      { numRuns: 500 },
    )
    for (const n of [0, 55, 56, 63, 64, 65, 119, 120])
      expect(sha256Hex("a".repeat(n))).toBe(createHash("sha256").update("a".repeat(n)).digest("hex"))
  })

  it("agrees with node on a lone surrogate, where the hand-written one did not", () => {
    for (const text of ["\ud800", "a\udfffb", "\udc00\ud800", "x\ud83d"]) {
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"))
      expect([...utf8Bytes(text)]).toEqual([...Buffer.from(text, "utf8")])
    }
    // The hand-written encoder wrote a lone surrogate as its own three bytes (ED A0 80).
    expect(sha256Hex("\ud800")).not.toBe(
      createHash("sha256")
        .update(Buffer.from([0xed, 0xa0, 0x80]))
        .digest("hex"),
    )
  })

  it("hmacSha256Hex is node's HMAC-SHA-256", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), anyText, (key, text) => {
        expect(hmacSha256Hex(key, text)).toBe(createHmac("sha256", key).update(text, "utf8").digest("hex"))
      }),
      { numRuns: 200 },
    )
  })

  it("utf8Bytes is node's UTF-8, so URL escaping spells a password as the wire does", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect([...utf8Bytes(text)]).toEqual([...Buffer.from(text, "utf8")])
      }),
      { numRuns: 300 },
    )
    expect(goQueryEscape("pä ss")).toBe("p%C3%A4+ss")
  })
})

describe("utf8Pieces", () => {
  it("hands over node's UTF-8 of any text in pieces that fit the scratch buffer given, none splitting a character", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, denseText), fc.integer({ min: 4, max: 16 }), (text, size) => {
        const scratch = new Uint8Array(size)
        const pieces: Array<Array<number>> = []
        utf8Pieces(text, scratch, (bytes) => {
          expect(bytes.buffer).toBe(scratch.buffer)
          pieces.push([...bytes])
        })
        expect(pieces.flat()).toEqual([...Buffer.from(text, "utf8")])
        // Each piece is whole UTF-8 on its own: a character cut between two would not decode to itself.
        for (const p of pieces) expect([...Buffer.from(Buffer.from(p).toString("utf8"), "utf8")]).toEqual(p)
      }),
      { numRuns: 300 },
    )
  })

  it("hashes texts one after another, each from a blank start, past the scratch buffer's size and back", () => {
    for (const text of ["a", "x".repeat(70_000), "", "é".repeat(40_000), "a"])
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"))
  })
})
