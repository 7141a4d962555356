// The standings against a model keyed independently of the code (a provider, its machine and a
// consumer as a tuple), the ordering rule's relations (a total order: of two different words exactly
// one is newer), and the words `status` says, pinned (novox/hq ADR 0224, issue 14).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { forget } from "@mesh-core/core/standings/forget"
import { statusJson, statusLines } from "@mesh-core/core/standings/render"
import { keptFromRow, rowOf } from "@mesh-core/core/standings/rows"
import { applyWord, applyWords, isNewer, type Kept, orderOf } from "@mesh-core/core/standings/standings"
import { defaultStaleAfterMs, isStale, StaleAfterSetting, statusOf } from "@mesh-core/core/standings/status"
import { hear, keyText, type Word } from "@mesh-core/core/standings/word"
import { Schema } from "effect"
import { lettaFailing, lettaFailingSaidAt } from "../support/standing-words.ts"
import { deadLetter, deadLetterLimits } from "@mesh-core/core/standings/dead-letters"
import { sortBatch } from "@mesh-core/core/standings/followers"

const base = Date.parse("2026-10-05T06:00:00Z")
const names = ["identity", "postgres", "hq-1", "hq-2", "letta", "grafana"]
const word: fc.Arbitrary<Word> = fc
  .record({
    provider: fc.constantFrom(...names),
    providerNode: fc.constantFrom(...names),
    consumer: fc.constantFrom(...names),
    at: fc.integer({ min: 0, max: 6 }).map((n) => base + n),
    failing: fc.boolean(),
    attempts: fc.integer({ min: 1, max: 3 }),
    error: fc.constantFrom("a", "b"),
    why: fc.constantFrom(undefined, "withdrawn", "first-success"),
  })
  .map((w) =>
    w.failing
      ? {
          provider: w.provider,
          providerNode: w.providerNode,
          consumer: w.consumer,
          state: "failing" as const,
          at: w.at,
          consumerNode: "hq-3",
          class: "unreachable",
          error: w.error,
          since: "2026-10-05T06:00:00Z",
          attempts: w.attempts,
        }
      : {
          provider: w.provider,
          providerNode: w.providerNode,
          consumer: w.consumer,
          state: "recovered" as const,
          at: w.at,
          ...(w.why === undefined ? {} : { why: w.why }),
        },
  )

const tupleKey = (w: { provider: string; providerNode: string; consumer: string }) =>
  JSON.stringify([w.provider, w.providerNode, w.consumer])

describe("one standing per provider, machine and consumer", () => {
  it("a batch keeps exactly one standing for each distinct (provider, machine, consumer), and it is of that key's newest word", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (ws) => {
        const { writes, outcomes } = applyWords(new Map(), ws)
        const keys = new Set(ws.map(tupleKey))
        expect(writes.map(tupleKey).sort()).toEqual([...keys].sort())
        for (const k of writes) {
          const mine = ws.filter((w) => tupleKey(w) === tupleKey(k))
          expect(k.at).toBe(Math.max(...mine.map((w) => w.at)))
        }
        expect(outcomes).toHaveLength(ws.length)
        // distinct keys spell distinct key texts
        expect(new Set(ws.map(keyText)).size).toBe(keys.size)
      }),
    )
  })

  it("words about other keys never change what a key's words do", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 20 }), fc.array(word, { maxLength: 20 }), (mine, others) => {
        const k = mine[0]
        if (k === undefined) return
        const foreign = others.filter((w) => tupleKey(w) !== tupleKey(k))
        const same = mine.filter((w) => tupleKey(w) === tupleKey(k))
        const alone = applyWords(new Map(), same).outcomes
        const mixed = applyWords(new Map(), [...same, ...foreign]).outcomes.slice(0, same.length)
        expect(mixed).toEqual(alone)
      }),
    )
  })

  it("the outcome of each word, against a model of the standing kept", () => {
    fc.assert(
      fc.property(
        fc.array(
          word.map((w) => ({ ...w, provider: "p", providerNode: "n", consumer: "c" })),
          { maxLength: 20 },
        ),
        (ws) => {
          const { outcomes } = applyWords(new Map(), ws)
          let kept: Kept | undefined
          ws.forEach((w, i) => {
            const k = w
            if (kept !== undefined && !isNewer(k, kept)) {
              expect(outcomes[i]).toBe("older-than-kept")
              return
            }
            expect(outcomes[i]).toBe(
              w.state === "failing" ? "failing" : kept?.state === "failing" ? "cleared" : "nothing-to-clear",
            )
            kept = k
          })
        },
      ),
    )
  })
})

describe("the ordering rule", () => {
  const kept = word
  it("is a strict total order on different words: exactly one of two is newer; none is newer than itself; it is transitive", () => {
    fc.assert(
      fc.property(kept, kept, kept, (a, b, c) => {
        expect(isNewer(a, a)).toBe(false)
        const same = orderOf(a) === orderOf(b)
        if (!same) expect(isNewer(a, b)).not.toBe(isNewer(b, a))
        if (isNewer(a, b) && isNewer(b, c)) expect(isNewer(a, c)).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it("at the same millisecond: failing, then recovered, then a forget; then more attempts after fewer", () => {
    const f: Kept = {
      provider: "p",
      providerNode: "n",
      consumer: "c",
      state: "failing",
      at: base,
      consumerNode: "x",
      class: "c",
      error: "e",
      since: "s",
      attempts: 2,
    }
    const r: Kept = { provider: "p", providerNode: "n", consumer: "c", state: "recovered", at: base }
    const g: Kept = { ...f, state: "forgotten", by: "ana" }
    expect([isNewer(r, f), isNewer(f, r), isNewer(g, r), isNewer(r, g), isNewer(g, f)]).toEqual([
      true,
      false,
      true,
      false,
      true,
    ])
    expect([
      isNewer({ ...f, attempts: 3 }, f),
      isNewer(f, { ...f, attempts: 3 }),
      isNewer({ ...f, at: base + 1 }, g),
      isNewer(g, { ...f, at: base + 1 }),
    ]).toEqual([true, false, true, false])
    const { attempts: _, ...unsaid } = f
    expect(isNewer(unsaid, { ...f, attempts: 0 })).toBe(false)
    expect(orderOf(f)).toMatch(/^0001791180000000:0:0000000002:[0-9a-f]{16}$/)
    expect(orderOf(g).split(":").slice(0, 3)).toEqual(["0001791180000000", "2", "0000000002"])
  })
})

describe("the standings table's rows", () => {
  it("a standing written as a row reads back as the same standing", () => {
    fc.assert(
      fc.property(word, fc.option(fc.constantFrom("ana", "bo"), { nil: undefined }), (w, by) => {
        const k: Kept = by === undefined ? w : { ...w, state: "forgotten", by }
        const { word_order: order, ...row } = rowOf(k)
        expect(order).toBe(orderOf(k))
        expect(keptFromRow(row)).toEqual({ ok: true, value: k })
      }),
    )
    expect(keptFromRow({ provider: "p" })).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^a standings row the store answered is not one: /),
    })
  })
})

describe("status", () => {
  const failing = (over: Partial<Kept>): Kept => ({
    provider: "identity",
    providerNode: "hq-2",
    consumer: "letta",
    state: "failing",
    at: base,
    consumerNode: "hq-3",
    class: "credentials-rejected",
    error: "invalid_grant",
    since: "2026-10-05T05:00:00Z",
    attempts: 61,
    ...over,
  })
  it("lists failing standings by key, stale ones marked, with the words a person reads", () => {
    const now = base + defaultStaleAfterMs + 1_500
    const s = statusOf(
      [
        failing({ consumer: "outline", at: now - 1_000 }),
        failing({}),
        failing({ consumer: "chat", state: "recovered" }),
      ],
      now,
      defaultStaleAfterMs,
      { count: 2, newest: base },
    )
    expect(s).toMatchObject({ well: false, stale: 1, staleAfterMs: 1_800_000 })
    expect(s.failing.map((f) => [f.consumer, f.stale, f.quietMs])).toEqual([
      ["letta", true, defaultStaleAfterMs + 1_500],
      ["outline", false, 1_000],
    ])
    expect(statusLines(s)).toEqual([
      "mesh: NOT WELL — 2 failing standings (a provider keeps failing a consumer), 1 of them stale (nobody has said it for over 30m0s)",
      "  STALE identity on hq-2 is failing letta on hq-3: credentials-rejected since 2026-10-05T05:00:00Z, 61 attempts (said 2026-10-05T06:00:00Z, nothing since for 30m1s)",
      "    last error: invalid_grant",
      "    if it is over (a consumer withdrawn while its provider was down): mesh-controller standings forget identity letta --node hq-2",
      "  identity on hq-2 is failing outline on hq-3: credentials-rejected since 2026-10-05T05:00:00Z, 61 attempts (said 2026-10-05T06:30:00Z)",
      "    last error: invalid_grant",
      "2 words set aside, unreadable or beyond the store's limits (the newest at 2026-10-05T06:00:00Z); they are kept with why in the store's dead_letters table",
    ])
    expect(JSON.parse(statusJson(s))).toEqual({
      well: false,
      failing: [
        {
          provider: "identity",
          providerNode: "hq-2",
          consumer: "letta",
          consumerNode: "hq-3",
          class: "credentials-rejected",
          since: "2026-10-05T05:00:00Z",
          attempts: 61,
          error: "invalid_grant",
          saidAt: "2026-10-05T06:00:00.000Z",
          stale: true,
        },
        {
          provider: "identity",
          providerNode: "hq-2",
          consumer: "outline",
          consumerNode: "hq-3",
          class: "credentials-rejected",
          since: "2026-10-05T05:00:00Z",
          attempts: 61,
          error: "invalid_grant",
          saidAt: "2026-10-05T06:30:00.500Z",
          stale: false,
        },
      ],
      stale: 1,
      staleAfter: "30m0s",
      setAside: { count: 2, newest: "2026-10-05T06:00:00.000Z" },
    })
  })

  it("well, one standing, two stale, one word set aside", () => {
    const well = statusOf([], base)
    expect(statusLines(well)).toEqual(["mesh: well — no provider is failing any consumer"])
    expect(JSON.parse(statusJson(well))).toEqual({
      well: true,
      failing: [],
      stale: 0,
      staleAfter: "30m0s",
      setAside: { count: 0, newest: null },
    })
    const { consumerNode: _, ...nowhere } = failing({})
    const one = statusOf([nowhere], base, 60_000, { count: 1, newest: undefined })
    expect(statusLines(one)).toEqual([
      "mesh: NOT WELL — 1 failing standing (a provider keeps failing a consumer)",
      "  identity on hq-2 is failing letta: credentials-rejected since 2026-10-05T05:00:00Z, 61 attempts (said 2026-10-05T06:00:00Z)",
      "    last error: invalid_grant",
      "1 word set aside, unreadable or beyond the store's limits (the newest at 1970-01-01T00:00:00Z); they are kept with why in the store's dead_letters table",
    ])
    expect(JSON.parse(statusJson(one)).failing[0].consumerNode).toBeNull()
    const two = statusOf([failing({}), failing({ consumer: "chat" })], base + 60_001, 60_000)
    expect(statusLines(two)[0]).toBe(
      "mesh: NOT WELL — 2 failing standings (a provider keeps failing a consumer), 2 of them stale (nobody has said them for over 1m0s)",
    )
    expect([
      isStale(failing({}), base + 60_000, 60_000),
      isStale(failing({}), base + 60_001, 60_000),
      isStale(failing({ state: "recovered" }), base + 1e9, 60_000),
    ]).toEqual([false, true, false])
    expect(statusOf([failing({ at: base + 5 })], base).failing[0]!.quietMs).toBe(0)
  })

  it("MESH_STALE_AFTER is a duration longer than 0s", () => {
    const ok = (s: string) => Schema.is(StaleAfterSetting)(s)
    expect(["30m", "90s", "1h30m", "0", "0s", "soon", ""].map(ok)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ])
  })
})

describe("forgetting a standing", () => {
  const f = (providerNode: string, at = base): Kept => ({
    provider: "identity",
    providerNode,
    consumer: "letta",
    state: "failing",
    at,
    consumerNode: "hq-3",
    class: "unreachable",
    error: "e",
    since: "s",
    attempts: 4,
  })
  const ask = { provider: "identity", consumer: "letta", providerNode: undefined, by: "ana", at: base + 10 }
  it("says what it cannot forget, and dates a forget after what it clears", () => {
    expect(forget([f("hq-2")], { ...ask, by: "  " })).toEqual({
      ok: false,
      why: "--by: who forgets it must be said (it is recorded)",
    })
    expect(forget([], ask)).toEqual({ ok: false, why: "no failing standing of identity for letta to forget" })
    expect(forget([f("hq-2")], { ...ask, providerNode: "hq-9" })).toEqual({
      ok: false,
      why: "no failing standing of identity on hq-9 for letta to forget",
    })
    expect(forget([f("hq-2"), f("hq-4")], ask)).toEqual({
      ok: false,
      why: "identity for letta fails from 2 machines (hq-2, hq-4): say which with --node",
    })
    expect(
      forget(
        [
          { ...f("hq-2"), state: "recovered" },
          { ...f("hq-2"), consumer: "chat" },
          { ...f("hq-2"), provider: "postgres" },
        ],
        ask,
      ).ok,
    ).toBe(false)
    const done = forget([f("hq-2"), f("hq-4")], { ...ask, providerNode: "hq-4" })
    expect(done).toEqual({
      ok: true,
      was: f("hq-4"),
      forgotten: {
        provider: "identity",
        providerNode: "hq-4",
        consumer: "letta",
        state: "forgotten",
        at: base + 10,
        consumerNode: "hq-3",
        class: "unreachable",
        since: "s",
        attempts: 4,
        why: "forgotten",
        by: "ana",
      },
    })
    const behind = forget([f("hq-2", base + 100)], ask)
    expect(behind.ok && behind.forgotten.at).toBe(base + 101)
    expect(
      applyWord(f("hq-2", base + 100), {
        provider: "identity",
        providerNode: "hq-2",
        consumer: "letta",
        state: "recovered",
        at: base + 100,
      }).outcome,
    ).toBe("cleared")
  })
})

describe("hearing a word: the refusals' words", () => {
  const failing = lettaFailing
  const at = lettaFailingSaidAt
  it("names the subject, the time, the body and the since it cannot keep", () => {
    expect(hear("provisioner.other", "{}", at, undefined)).toEqual({
      ok: false,
      why: '"provisioner.other" is not a provider\'s word',
    })
    expect(hear("provisioner.failing", "{}", "yesterday", undefined)).toEqual({
      ok: false,
      why: 'no usable Mesh-At time ("yesterday"): RFC 3339 with a year from 1970 to 9999',
    })
    expect(hear("provisioner.failing", "{}", undefined, undefined)).toEqual({
      ok: false,
      why: "no usable Mesh-At time (none): RFC 3339 with a year from 1970 to 9999",
    })
    const received = Date.parse(at) - 3_600_001
    expect(hear("provisioner.failing", JSON.stringify(failing), at, received)).toEqual({
      ok: false,
      why: `Mesh-At ${at} is more than an hour after the stream received the word`,
    })
    expect(hear("provisioner.failing", JSON.stringify(failing), at, received + 1).ok).toBe(true)
    expect(hear("provisioner.failing", "x".repeat(16_385), at, undefined)).toEqual({
      ok: false,
      why: "the body is 16385 characters, over the 16384 a word may be",
    })
    expect(hear("provisioner.failing", "{", at, undefined)).toEqual({ ok: false, why: "the body is not JSON" })
    expect(
      hear("provisioner.failing", JSON.stringify({ ...failing, since: "2026-10-05T06:15:01Z" }), at, undefined),
    ).toEqual({ ok: true, word: expect.objectContaining({ since: "2026-10-05T06:15:01Z" }) })
    expect(
      hear("provisioner.failing", JSON.stringify({ ...failing, since: "2026-10-05T06:15:01.001Z" }), at, undefined),
    ).toEqual({
      ok: false,
      why: "since 2026-10-05T06:15:01.001Z is after the word was said (2026-10-05T06:15:00.000Z)",
    })
    expect(
      hear(
        "provisioner.recovered",
        JSON.stringify({
          consumer: "letta",
          provider: "identity",
          "provider-node": "hq-2",
          since: "2026-10-05T07:00:00Z",
        }),
        at,
        undefined,
      ).ok,
    ).toBe(false)
    const r = hear(
      "provisioner.recovered",
      JSON.stringify({
        consumer: "letta",
        provider: "identity",
        "provider-node": "hq-2",
        node: "hq-3",
        attempts: 4,
        since: "2026-10-05T06:00:00Z",
        why: "withdrawn",
      }),
      at,
      undefined,
    )
    expect(r).toEqual({
      ok: true,
      word: {
        state: "recovered",
        at: Date.parse(at),
        provider: "identity",
        providerNode: "hq-2",
        consumer: "letta",
        consumerNode: "hq-3",
        since: "2026-10-05T06:00:00Z",
        attempts: 4,
        why: "withdrawn",
      },
    })
    expect(hear("provisioner.failing", JSON.stringify(failing), at, undefined)).toEqual({
      ok: true,
      word: {
        state: "failing",
        at: Date.parse(at),
        provider: "identity",
        providerNode: "hq-2",
        consumer: "letta",
        consumerNode: "hq-3",
        class: "credentials-rejected",
        error: "x",
        since: "2026-10-05T06:10:00Z",
        attempts: 61,
      },
    })
    const bad = hear("provisioner.failing", JSON.stringify({ ...failing, attempts: -1 }), at, undefined)
    expect(bad.ok === false && bad.why.startsWith("not a provisioner.failing body the store can keep: ")).toBe(true)
    const badRecovered = hear("provisioner.recovered", JSON.stringify({ consumer: "" }), at, undefined)
    expect(
      badRecovered.ok === false && badRecovered.why.startsWith("not a provisioner.recovered body the store can keep: "),
    ).toBe(true)
  })
})

describe("words set aside (issue 14)", () => {
  it("keeps what came, clipped and made storable, with why and where it came from", async () => {
    expect(deadLetterLimits).toEqual({ bodyChars: 2_000, whyChars: 1_000 })
    const d = deadLetter({
      kind: "k".repeat(65),
      stream: "s".repeat(257),
      subject: "x\u0000y".repeat(200),
      streamSequence: 7,
      body: "b".repeat(2_001),
      why: "w\uD800".repeat(600),
    })
    expect(d.kind).toBe(`${"k".repeat(64)}…`)
    expect(d.stream).toBe(`${"s".repeat(256)}…`)
    expect(d.subject).toBe(`${"x\uFFFDy".repeat(170)}x\uFFFD…`)
    expect(d.body).toBe(`${"b".repeat(2_000)}…`)
    expect(d.why).toBe(`${"w\uFFFD".repeat(500)}…`)
    expect(d.streamSequence).toBe(7)
    expect(
      deadLetter({ kind: "k", stream: "s", subject: "t", streamSequence: 1, body: "b".repeat(2_000), why: "ok" }),
    ).toEqual({ kind: "k", stream: "s", subject: "t", streamSequence: 1, body: "b".repeat(2_000), why: "ok" })
    const r = sortBatch([
      {
        event: "provisioner.failing",
        subject: "mesh.provisioner.failing",
        stream: "PROVISIONER",
        seq: 3,
        body: "{",
        saidAt: "2026-10-05T06:00:00Z",
      },
    ])
    expect(r).toEqual({
      words: [],
      setAside: [
        {
          kind: "standing-word",
          stream: "PROVISIONER",
          subject: "mesh.provisioner.failing",
          streamSequence: 3,
          body: "{",
          why: "the body is not JSON",
        },
      ],
    })
  })
})
