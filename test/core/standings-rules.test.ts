// What a provider's word does to the kept standings, as properties over random words.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { applyWord, applyWords, type Kept } from "@mesh-core/core/standings/standings"
import { statusOf as statusAt } from "@mesh-core/core/standings/status"
import { hear, keyText, type Word } from "@mesh-core/core/standings/word"
import { lettaFailing, lettaFailingSaidAt } from "../support/standing-words.ts"

const key = fc.record({
  provider: fc.constantFrom("identity", "postgres"),
  providerNode: fc.constantFrom("hq-1", "hq-2"),
  consumer: fc.constantFrom("letta", "grafana"),
})
const at = fc.integer({ min: 0, max: 50 }).map((n) => Date.parse("2026-10-05T06:00:00Z") + n * 1_000)
const word: fc.Arbitrary<Word> = fc.oneof(
  fc
    .record({
      k: key,
      at,
      attempts: fc.integer({ min: 1, max: 99 }),
      class: fc.constantFrom("credentials-rejected", "unreachable"),
    })
    .map(({ k, at, attempts, class: c }) => ({
      ...k,
      state: "failing" as const,
      at,
      consumerNode: "hq-3",
      class: c,
      error: `boom ${attempts}`,
      since: "2026-10-05T06:00:00Z",
      attempts,
    })),
  fc.record({ k: key, at, why: fc.constantFrom(undefined, "withdrawn", "first-success") }).map(({ k, at, why }) => ({
    ...k,
    state: "recovered" as const,
    at,
    ...(why === undefined ? {} : { why }),
  })),
)

const fold = (words: ReadonlyArray<Word>): Map<string, Kept> => {
  const kept = new Map<string, Kept>()
  for (const w of words) {
    const r = applyWord(kept.get(keyText(w)), w)
    if (r.kept !== undefined) kept.set(keyText(w), r.kept)
  }
  return kept
}
const statusOf = (kept: Iterable<Kept>) => statusAt(kept, Date.parse("2026-10-05T06:00:00Z"))
const visible = (kept: Map<string, Kept>) => statusOf(kept.values())

describe("standings rules", () => {
  it("the newest word wins whatever the arrival order", () => {
    fc.assert(
      fc.property(
        fc
          .array(word, { maxLength: 30 })
          .chain((ws) =>
            fc.tuple(fc.constant(ws), fc.shuffledSubarray(ws, { minLength: ws.length, maxLength: ws.length })),
          ),
        ([inOrder, shuffled]) => {
          expect(visible(fold(shuffled))).toEqual(visible(fold(inOrder)))
        },
      ),
      { numRuns: 500 },
    )
  })

  it("the standing kept for a key is the one its newest word says", () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 30 }), (ws) => {
        const kept = fold(ws)
        for (const [k, standing] of kept) {
          const newest = Math.max(...ws.filter((w) => keyText(w) === k).map((w) => w.at))
          expect(standing.at).toBe(newest)
        }
      }),
    )
  })

  it("an older word never overwrites a newer one", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const later = {
          ...b,
          ...{ provider: a.provider, providerNode: a.providerNode, consumer: a.consumer },
          at: a.at + 1,
        } as Word
        const after = applyWord(applyWord(undefined, later).kept, a)
        expect(after.outcome).toBe("older-than-kept")
        expect(after.kept!.at).toBe(later.at)
      }),
    )
  })

  it("recovered after failing clears the standing; the mesh is well again", () => {
    fc.assert(
      fc.property(
        word.filter((w) => w.state === "failing"),
        fc.constantFrom(undefined, "withdrawn", "first-success"),
        (failing, why) => {
          const f = applyWord(undefined, failing)
          expect(statusOf([f.kept!]).well).toBe(false)
          const r = applyWord(f.kept, {
            ...failing,
            state: "recovered",
            at: failing.at + 1,
            ...(why === undefined ? {} : { why }),
          })
          expect(r.outcome).toBe("cleared")
          expect(statusOf([r.kept!]).well).toBe(true)
        },
      ),
    )
  })

  it("a recovered for a consumer never announced failing changes nothing anyone sees", () => {
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 20 }),
        word.filter((w) => w.state === "recovered"),
        (ws, rec) => {
          const others = ws.filter((w) => keyText(w) !== keyText(rec))
          const before = visible(fold(others))
          const after = visible(fold([...others, rec]))
          expect(after).toEqual(before)
          expect(applyWord(undefined, rec).outcome).toBe("nothing-to-clear")
        },
      ),
    )
  })

  it("a batch applies as its words one by one, and writes one standing per key", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (ws) => {
        const r = applyWords(new Map(), ws)
        expect(new Set(r.writes.map(keyText)).size).toBe(r.writes.length)
        expect(statusOf(r.writes)).toEqual(visible(fold(ws)))
      }),
    )
  })

  it("hears the seed's bodies and refuses what is not one", () => {
    const failing = lettaFailing
    expect(hear("provisioner.failing", JSON.stringify(failing), lettaFailingSaidAt, undefined)).toMatchObject({
      ok: true,
      word: { state: "failing", consumer: "letta", consumerNode: "hq-3", attempts: 61 },
    })
    expect(
      hear(
        "provisioner.recovered",
        JSON.stringify({ consumer: "letta", provider: "identity", "provider-node": "hq-2", why: "first-success" }),
        "2026-10-05T06:15:00.000Z",
        undefined,
      ),
    ).toMatchObject({ ok: true, word: { state: "recovered", why: "first-success" } })
    expect(
      hear(
        "provisioner.failing",
        JSON.stringify({ ...failing, attempts: "many" }),
        "2026-10-05T06:15:00.000Z",
        undefined,
      ).ok,
    ).toBe(false)
    expect(hear("provisioner.failing", JSON.stringify(failing), undefined, undefined).ok).toBe(false)
    expect(hear("provisioner.failing", "{", "2026-10-05T06:15:00.000Z", undefined).ok).toBe(false)
  })
})
