// A word is read against the store's limits before it reaches a transaction (issue 14), and the
// order the store compares is the core's own (issue 11).
import { createHash } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { deadLetter } from "@mesh-core/core/standings/dead-letters"
import { sortBatch } from "@mesh-core/core/standings/followers"
import { forget } from "@mesh-core/core/standings/forget"
import { applyWords, isNewer, type Kept, orderOf } from "@mesh-core/core/standings/standings"
import { isStale, statusOf } from "@mesh-core/core/standings/status"
import { hear, keyText, parseRfc3339, type Word } from "@mesh-core/core/standings/word"
import { lettaFailing, lettaFailingSaidAt } from "../support/standing-words.ts"

const at0 = Date.parse("2026-10-05T06:00:00Z")
const good = lettaFailing
const saidAt = lettaFailingSaidAt
const failing = (body: unknown, at = saidAt, received: number | undefined = Date.parse(saidAt)) =>
  hear("provisioner.failing", JSON.stringify(body), at, received)

// What the store can hold, stated on its own: PostgreSQL integer, text without NUL, timestamptz.
const storable = (w: Word): boolean =>
  Object.values(w).every((v) => typeof v !== "string" || (!v.includes("\u0000") && !/[\uD800-\uDFFF]/u.test(v))) &&
  (w.attempts === undefined || (Number.isInteger(w.attempts) && w.attempts >= 0 && w.attempts <= 2 ** 31 - 1)) &&
  w.at >= 0 &&
  w.at < Date.UTC(10000, 0, 1)

describe("a word the store cannot keep is refused before the store sees it", () => {
  it("the odd words of issue 14 are refused; the seed's word is heard", () => {
    expect(failing(good).ok).toBe(true)
    expect(failing({ ...good, attempts: 2147483647 }).ok).toBe(true)
    for (const odd of [
      { ...good, attempts: 2147483648 },
      { ...good, attempts: 1.5 },
      { ...good, attempts: -1 },
      { ...good, error: "a\u0000b" },
      { ...good, consumer: "\uD800" },
      { ...good, since: "2026-10-05" },
      { ...good, consumer: "x".repeat(129) },
    ]) {
      expect(failing(odd).ok, JSON.stringify(odd)).toBe(false)
    }
    expect(failing(good, "+275760-09-13T00:00:00.000Z").ok).toBe(false)
    expect(failing(good, "9999-12-31T00:00:00Z", Date.parse("2026-10-05T06:15:00Z")).ok).toBe(false) // from the future
    expect(failing({ ...good, since: "2026-10-05T07:00:00Z" }).ok).toBe(false) // a run that began after the word
    expect(hear("provisioner.failing", "x".repeat(20_000), saidAt, undefined).ok).toBe(false)
  })

  it("whatever comes, hear answers and never throws, and every word it accepts the store can hold", () => {
    const anyValue = fc.oneof(fc.string({ unit: "binary" }), fc.double(), fc.integer(), fc.constant(null), fc.boolean())
    const nearValid = fc
      .record({ field: fc.constantFrom(...Object.keys(good)), value: anyValue })
      .map(({ field, value }) => JSON.stringify({ ...good, [field]: value }))
    fc.assert(
      fc.property(
        fc.constantFrom("provisioner.failing", "provisioner.recovered", "other"),
        fc.oneof(fc.string({ unit: "binary" }), nearValid),
        fc.oneof(
          fc.constant(saidAt),
          fc.string(),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
        (event, body, at) => {
          const h = hear(event, body, at, Date.parse(saidAt))
          if (h.ok) expect(storable(h.word)).toBe(true)
          else expect(h.why.length).toBeGreaterThan(0)
        },
      ),
      { numRuns: 2_000 },
    )
  })

  it("attempts are kept exactly when they are a PostgreSQL integer of 0 or more", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.integer({ min: -10, max: 2 ** 31 + 10 }), fc.constantFrom(2 ** 31 - 1, 2 ** 31)),
        (attempts) => {
          expect(failing({ ...good, attempts }).ok).toBe(
            Number.isInteger(attempts) && attempts >= 0 && attempts <= 2_147_483_647,
          )
        },
      ),
    )
  })

  it("RFC 3339 times read as Date reads their ISO form, and impossible dates are refused", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }),
        (d) => {
          expect(parseRfc3339(d.toISOString())).toBe(d.getTime())
          expect(parseRfc3339(d.toISOString().replace("Z", "+02:00"))).toBe(d.getTime() - 2 * 3_600_000)
        },
      ),
    )
    for (const bad of [
      "2026-02-30T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "1",
      "2026-10-05 06:00:00",
      "1969-12-31T23:59:59Z",
      "2026-10-05T24:00:00Z",
    ])
      expect(parseRfc3339(bad), bad).toBeUndefined()
  })

  it("a batch: every message is kept or set aside, and odd ones change nothing about the others", () => {
    const msg = (body: string, i: number) => ({
      event: "provisioner.failing",
      subject: "provisioner.failing",
      stream: "PROVISIONER",
      seq: i,
      body,
      saidAt,
      receivedAt: Date.parse(saidAt),
    })
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 30 }),
        fc.array(fc.string({ unit: "binary" }), { maxLength: 10 }),
        (attempts, odd) => {
          const ordinary = attempts.map((a, i) => msg(JSON.stringify({ ...good, attempts: a, consumer: `c${i}` }), i))
          const odds = odd.map((b, i) => msg(`{"attempts":1.5,"x":${JSON.stringify(b)}}`, 1_000 + i))
          const mixed = [...ordinary, ...odds].sort((a, b) => (a.body.length % 7) - (b.body.length % 7))
          const r = sortBatch(mixed)
          expect(r.words.length + r.setAside.length).toBe(mixed.length)
          expect(r.setAside.length).toBe(odds.length)
          expect(new Set(r.words.map((w) => w.consumer))).toEqual(
            new Set(sortBatch(ordinary).words.map((w) => w.consumer)),
          )
        },
      ),
    )
  })

  it("what is set aside is storable whatever it held", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 5_000 }), fc.string({ unit: "binary" }), (body, why) => {
        const d = deadLetter({ kind: "standing-word", stream: "S", subject: why, streamSequence: 1, body, why })
        for (const s of [d.body, d.why, d.subject]) expect(/[\u0000\uD800-\uDFFF]/u.test(s)).toBe(false)
        expect(d.body.length).toBeLessThanOrEqual(2_001)
      }),
    )
  })
})

const key = fc.record({
  provider: fc.constantFrom("identity", "pg"),
  providerNode: fc.constantFrom("hq-1", "hq-2"),
  consumer: fc.constantFrom("letta", "grafana"),
})
const word: fc.Arbitrary<Word> = fc
  .record({
    k: key,
    at: fc.integer({ min: 0, max: 20 }).map((n) => at0 + n * 1_000),
    attempts: fc.integer({ min: 0, max: 3 }),
    e: fc.constantFrom("a", "b", "é", "😀"),
    rec: fc.boolean(),
  })
  .map(({ k, at, attempts, e, rec }) =>
    rec
      ? {
          ...k,
          state: "recovered" as const,
          at,
          why: e,
        }
      : {
          ...k,
          state: "failing" as const,
          at,
          consumerNode: "hq-3",
          class: "unreachable",
          error: e,
          since: "2026-10-05T06:00:00Z",
          attempts,
        },
  )

describe("the order the store compares is the core's", () => {
  it("comparing orderOf keys as bytes answers what isNewer answers", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const [ka, kb] = [a, b]
        const bytes = Buffer.compare(Buffer.from(orderOf(ka)), Buffer.from(orderOf(kb)))
        expect(bytes > 0).toBe(isNewer(ka, kb))
        expect(bytes < 0).toBe(isNewer(kb, ka))
      }),
      { numRuns: 2_000 },
    )
  })

  it("batches written as the store writes them (newest per batch, then replaced only by a greater key) keep what the words one by one keep", () => {
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 10 }), { maxLength: 6 }), (batches) => {
        const table = new Map<string, Kept>()
        for (const b of batches) {
          for (const w of applyWords(new Map(), b).writes) {
            const row = table.get(keyText(w))
            if (row === undefined || orderOf(w) > orderOf(row)) table.set(keyText(w), w)
          }
        }
        // the model: for each key the word with the latest time wins, ties by the same rule
        const all = batches.flat()
        for (const [k, kept] of table) {
          const newest = Math.max(...all.filter((w) => keyText(w) === k).map((w) => w.at))
          expect(kept.at).toBe(newest)
        }
        expect(new Map([...table].map(([k, v]) => [k, v.state]))).toEqual(
          new Map([...applyWords(new Map(), all).writes].map((v) => [keyText(v), v.state])),
        )
      }),
    )
  })
})

describe("stale standings and forgetting", () => {
  it("a failing standing is stale exactly when nobody said it for longer than staleAfter, and is still counted", () => {
    fc.assert(
      fc.property(
        word.filter((w) => w.state === "failing"),
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.integer({ min: 1, max: 3_600_000 }),
        (w, quiet, staleAfter) => {
          const s = statusOf([w], w.at + quiet, staleAfter)
          expect(s.well).toBe(false)
          expect(s.failing[0]!.stale).toBe(quiet > staleAfter)
          expect(s.stale).toBe(quiet > staleAfter ? 1 : 0)
          expect(isStale(w, w.at + quiet, staleAfter)).toBe(quiet > staleAfter)
        },
      ),
    )
  })

  it("a forget clears the standing; an older word cannot bring it back; a newer word counts", () => {
    fc.assert(
      fc.property(
        word.filter((w) => w.state === "failing"),
        fc.integer({ min: -5_000, max: 5_000 }),
        word,
        (w, skew, late) => {
          const kept = w
          const f = forget([kept], {
            provider: w.provider,
            consumer: w.consumer,
            providerNode: undefined,
            by: "ana",
            at: w.at + skew,
          })
          expect(f.ok).toBe(true)
          if (!f.ok) return
          expect(f.forgotten.by).toBe("ana")
          expect(isNewer(f.forgotten, kept)).toBe(true)
          const sameKey = { ...late, provider: w.provider, providerNode: w.providerNode, consumer: w.consumer } as Word
          const after = applyWords(new Map([[keyText(w), f.forgotten]]), [sameKey]).writes
          const state = after[0]?.state ?? "forgotten"
          if (sameKey.at > f.forgotten.at) expect(state).toBe(sameKey.state)
          if (sameKey.at < f.forgotten.at) expect(state).toBe("forgotten")
          expect(statusOf([f.forgotten], w.at).well).toBe(true)
        },
      ),
    )
  })

  it("a forget names what it clears: nothing failing, or several machines without --node, is refused", () => {
    const a: Kept = {
      provider: "identity",
      providerNode: "hq-1",
      consumer: "letta",
      state: "failing",
      at: at0,
      consumerNode: "hq-3",
      class: "x",
      error: "e",
      since: good.since,
      attempts: 1,
    }
    const b = { ...a, providerNode: "hq-2" }
    const ask = { provider: "identity", consumer: "letta", providerNode: undefined, by: "ana", at: at0 }
    expect(forget([], ask).ok).toBe(false)
    expect(forget([a, b], ask)).toMatchObject({ ok: false, why: expect.stringContaining("--node") })
    expect(forget([a, b], { ...ask, providerNode: "hq-2" })).toMatchObject({ ok: true, was: { providerNode: "hq-2" } })
    expect(forget([a], { ...ask, by: " " }).ok).toBe(false)
  })
})

describe("two words of one millisecond, one state and one count of attempts", () => {
  // Found by the arrival-order property (seed 1600405813): words differing only in class tied, and
  // whichever arrived last was kept.
  const word = (over: Partial<Record<string, unknown>>) => {
    const h = failing({ ...good, ...over })
    if (!h.ok) throw new Error(h.why)
    return h.word
  }
  const keptAfter = (ws: ReadonlyArray<Word>) => applyWords(new Map(), ws).writes
  it("keep the same standing whichever arrives first, whatever field alone they differ in", () => {
    for (const over of [
      { class: "unreachable" },
      { node: "hq-9" },
      { since: "2026-10-05T06:11:00Z" },
      { error: "y" },
    ]) {
      const [a, b] = [word({}), word(over)]
      expect(keptAfter([a, b]), JSON.stringify(over)).toEqual(keptAfter([b, a]))
      expect(orderOf(a)).not.toBe(orderOf(b))
    }
  })
  it("a recovered word that says attempts 0 and one that says none are ordered, not tied", () => {
    const base = { consumer: "letta", provider: "identity", "provider-node": "hq-2" }
    const said = hear("provisioner.recovered", JSON.stringify({ ...base, attempts: 0 }), saidAt, undefined)
    const unsaid = hear("provisioner.recovered", JSON.stringify(base), saidAt, undefined)
    if (!said.ok || !unsaid.ok) throw new Error("unheard")
    expect(orderOf(said.word)).not.toBe(orderOf(unsaid.word))
    expect(keptAfter([said.word, unsaid.word])).toEqual(keptAfter([unsaid.word, said.word]))
  })
})

describe("the order key's digest", () => {
  // The rule as docs/bus.md and migration 0012 state it, with node's own SHA-256 beside the core's.
  const escaped = (v: string | undefined) =>
    v === undefined ? "\\-" : v.replaceAll("\\", "\\\\").replaceAll("|", "\\|")
  const documented = (k: Kept) =>
    createHash("sha256")
      .update(
        [k.error, k.why, k.by, k.class, k.consumerNode, k.since].map(escaped).join("|") +
          (k.attempts === undefined ? "|\\-" : "|+"),
        "utf8",
      )
      .digest("hex")
      .slice(0, 16)
  // A field not said is absent.
  const text = fc.string({ unit: fc.constantFrom("a", "|", "\\", "-", "é", "+") })
  const kept = fc
    .record(
      {
        state: fc.constantFrom("failing" as const, "recovered" as const, "forgotten" as const),
        at: fc.integer({ min: 0, max: 2 ** 42 }),
        attempts: fc.nat({ max: 2 ** 31 - 1 }),
        error: text,
        why: text,
        by: text,
        class: text,
        consumerNode: text,
        since: text,
      },
      { requiredKeys: ["state", "at"] },
    )
    .map((r): Kept => ({ provider: "p", providerNode: "n", consumer: "c", ...r }))

  it("is the SHA-256 of every field a standing keeps but the count of attempts, escaped, with whether it was said", () => {
    fc.assert(
      fc.property(kept, (k) => {
        expect(orderOf(k).split(":")[3]).toBe(documented(k))
      }),
      { numRuns: 300 },
    )
  })

  it("is one for a provider's retries, which differ only in their count; their keys still differ, by the count", () => {
    const first: Kept = {
      provider: "p",
      providerNode: "n",
      consumer: "c",
      state: "failing",
      at: at0,
      consumerNode: "hq-3",
      class: "c",
      error: "e",
      since: "s",
      attempts: 61,
    }
    const retry: Kept = { ...first, attempts: 62 }
    expect(orderOf(first).split(":")[3]).toBe(orderOf(retry).split(":")[3])
    expect(orderOf(retry) > orderOf(first)).toBe(true)
    const { attempts: _, ...unsaid } = first
    expect(orderOf({ ...first, attempts: 0 }).split(":")[3]).not.toBe(orderOf(unsaid).split(":")[3])
  })
})
