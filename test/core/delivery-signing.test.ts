// The signing identity's words (seed 002: `fmt.Printf("signing as %s\n", key.Fingerprint()[:16])`).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { cannotSignSaid, draftOverTheBusLimit, overTheBusLimit, signingSaid } from "@mesh-core/core/delivery/signing"

describe("signing as", () => {
  it("names the fingerprint by its first 16 hex digits, as the seed prints it", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (fp) => {
        const said = signingSaid(fp)
        expect(said).toMatch(/^signing as [0-9a-f]{16}$/)
        expect(fp.startsWith(said.slice("signing as ".length))).toBe(true)
      }),
    )
  })

  it("a controller that cannot sign says why and that it does not start", () => {
    expect(cannotSignSaid("a corrupt key")).toBe(
      "this controller cannot sign (a corrupt key), and every machine would refuse what it declares: it does not start",
    )
  })
})

describe("a declaration over the bus's limit", () => {
  it("refused exactly when its bytes exceed the limit, naming both", () => {
    fc.assert(
      fc.property(fc.nat(1e8), fc.nat(1e8), (bytes, limit) => {
        const said = overTheBusLimit({ node: "hq-1", bytes, limit })
        expect(said === undefined).toBe(bytes <= limit)
        if (said !== undefined) {
          expect(said).toContain(`${bytes} bytes on the bus`)
          expect(said).toContain(`over the ${limit} bytes`)
          expect(said).toContain("no sequence number was taken")
        }
      }),
    )
  })
})

describe("a drafted declaration against the bus's limit (issue 41)", () => {
  it("is judged as its envelope would be sent under the largest sequence, measured or not", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.nat(3000), (text, limit) => {
        const head = `{"node":${JSON.stringify(text)},"sequence":`
        const body = `${head}${Number.MAX_SAFE_INTEGER}}`
        const bytes = Buffer.byteLength(JSON.stringify({ body, signature: "x".repeat(88), key: "x".repeat(64) }))
        expect(draftOverTheBusLimit("hq-1", head, limit)).toBe(overTheBusLimit({ node: "hq-1", bytes, limit }))
      }),
      { numRuns: 500 },
    )
  })

  it("a declaration exactly at the limit fits, one byte over does not, however its characters are escaped", () => {
    expect(overTheBusLimit({ node: "hq-1", bytes: 1000, limit: 1000 })).toBeUndefined()
    expect(overTheBusLimit({ node: "hq-1", bytes: 1001, limit: 1000 })).toContain("1001 bytes on the bus")
    // Control characters are the costliest to send: six bytes each escaped (\u0001).
    for (const text of ["\u0001".repeat(200), "é".repeat(200), "plain".repeat(40)]) {
      const head = `{"node":${JSON.stringify(text)},"sequence":`
      const body = `${head}${Number.MAX_SAFE_INTEGER}}`
      const bytes = Buffer.byteLength(JSON.stringify({ body, signature: "x".repeat(88), key: "x".repeat(64) }))
      expect(draftOverTheBusLimit("hq-1", head, bytes)).toBeUndefined()
      expect(draftOverTheBusLimit("hq-1", head, bytes - 1)).toBe(
        overTheBusLimit({ node: "hq-1", bytes, limit: bytes - 1 }),
      )
    }
  })

  it("is measured only when it might not fit: when its head, the sequence's 16 digits and the closing brace, all at six bytes a character, its two quotes and the envelope's other fields exceed the limit", () => {
    const envelopeRest = JSON.stringify({ body: "", signature: "x".repeat(88), key: "x".repeat(64) }).length - 2
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.nat(3000), (text, spread) => {
        const head = `{"node":${JSON.stringify(text)},"sequence":`
        const worst = (head.length + 16 + 1) * 6 + 2 + envelopeRest
        let measured = 0
        for (const limit of [worst, worst - 1, worst + 1, spread]) {
          const before = measured
          draftOverTheBusLimit("hq-1", head, limit, (h, sequence) => {
            measured += 1
            return Buffer.byteLength(
              JSON.stringify({ body: `${h}${sequence}}`, signature: "x".repeat(88), key: "x".repeat(64) }),
            )
          })
          expect(measured - before, `limit ${limit}, worst ${worst}`).toBe(limit < worst ? 1 : 0)
        }
      }),
      { numRuns: 200 },
    )
  })
})
