// One look at the controller lease as a program (core/src/lease/look.ts, issue 25), held to what the
// lease's shell decided before it was one: the core's `decide`, `unread`, `floorUnread` and
// `afterWrite` (seed 004's rules) called directly on the same facts are the model. The look reads the
// record first, then the clock, then the store's newest epoch only when it does not hold the lease;
// writes what the core asks; says what the core says, as the lease; and hands back the lost sentence
// rather than say it (the shell stops every act with it, and says it once).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { catalogues } from "@mesh-core/core/controller/catalogue"
import {
  afterWrite,
  candidate,
  decide,
  floorUnread,
  holding,
  holdingWords,
  type LeaseMemory,
  lostSentence,
  unread,
  waitingWords,
  type WriteOutcome,
} from "@mesh-core/core/lease/lease"
import { look, type LookResult } from "@mesh-core/core/lease/look"
import { type LeaseQuestions, leaseQuestions } from "@mesh-core/core/lease/questions"
import type { LeaseRead, LeaseRecord } from "@mesh-core/core/lease/record"
import { defaultLeaseSettings as s } from "@mesh-core/core/lease/settings"
import { type QuestionOf, runPure } from "@mesh-core/core/program"

type Readable<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly why: string }

/** What the world answers one look: each fact as its question would be answered. */
interface Facts {
  readonly read: Readable<LeaseRead>
  readonly at: number
  readonly floor: Readable<number>
  readonly outcome: WriteOutcome
  /** The clock read again after the write. */
  readonly later: number
}

interface Seen extends LookResult {
  readonly asked: ReadonlyArray<string>
  readonly said: ReadonlyArray<string>
  readonly writes: ReadonlyArray<unknown>
}

const lookOn = (m: LeaseMemory, f: Facts): Seen => {
  let clock = 0
  const ran = runPure(look(s, m), (q: QuestionOf<LeaseQuestions>) => {
    switch (q.q) {
      case "lease-record":
        return f.read
      case "lease-now":
        return clock++ === 0 ? f.at : f.later
      case "lease-epoch-floor":
        return f.floor
      case "lease-write":
        return f.outcome
    }
  })
  return {
    ...ran.result,
    asked: ran.exchanges.map((e) => e.question.q),
    said: ran.said,
    writes: ran.exchanges.flatMap((e) => (e.question.q === "lease-write" ? [e.question.write] : [])),
  }
}

/** The lease shell's look as it was, step by step, on the core's functions: the model. */
const model = (m: LeaseMemory, f: Facts): Seen => {
  const quiet = { holds: false, written: undefined, lost: undefined, said: [], writes: [] }
  if (!f.read.ok) {
    const d = unread(s, m, f.at)
    return d.decision === "lost"
      ? { ...quiet, asked: ["lease-record", "lease-now"], memory: d.memory, lost: `${d.said} (${f.read.why})` }
      : { ...quiet, asked: ["lease-record", "lease-now"], memory: m }
  }
  const asked =
    m.held === undefined ? ["lease-record", "lease-now", "lease-epoch-floor"] : ["lease-record", "lease-now"]
  if (m.held === undefined && !f.floor.ok) {
    const d = floorUnread(s, m, f.at, f.floor.why)
    return { ...quiet, asked, memory: d.memory, said: d.said === undefined ? [] : [`[lease] ${d.said}`] }
  }
  const d = decide(s, m, {
    read: f.read.value,
    at: f.at,
    floor: m.held === undefined && f.floor.ok ? f.floor.value : 0,
  })
  if (d.decision === "lost") return { ...quiet, asked, memory: d.memory, lost: d.said }
  const said = d.said === undefined ? [] : [`[lease] ${d.said}`]
  if (d.decision === "wait") return { ...quiet, asked, memory: d.memory, said }
  const after = afterWrite(d.memory, d.write, f.outcome, f.at)
  return {
    asked: [...asked, "lease-write", "lease-now"],
    memory: after.memory,
    holds: holding(s, after.memory, f.later),
    written: f.outcome.outcome === "written" ? d.write.record : undefined,
    lost: undefined,
    said: after.said === undefined ? said : [...said, `[lease] ${after.said}`],
    writes: [d.write],
  }
}

const time = fc.integer({ min: 0, max: 40_000 })
const recordArb: fc.Arbitrary<LeaseRecord> = fc.record({
  holder: fc.constantFrom("me", "other"),
  epoch: fc.integer({ min: 1, max: 6 }),
  acquiredAt: time,
  renewedAt: time,
  durationMs: fc.constantFrom(s.duration, 5_000),
  givenBack: fc.boolean(),
  ready: fc.boolean(),
})
const readArb: fc.Arbitrary<Readable<LeaseRead>> = fc.oneof(
  fc.constantFrom("the bucket cannot be reached: timeout").map((why) => ({ ok: false as const, why })),
  fc.constant({ ok: true as const, value: { found: false as const } }),
  fc
    .record({ revision: fc.integer({ min: 1, max: 4 }), record: recordArb })
    .map((r) => ({ ok: true as const, value: { found: true as const, ...r } })),
  fc.integer({ min: 1, max: 4 }).map((revision) => ({
    ok: true as const,
    value: { found: true as const, revision, unreadable: "the lease's record cannot be read: epoch: not a number" },
  })),
)
const floorArb: fc.Arbitrary<Readable<number>> = fc.oneof(
  fc.integer({ min: 0, max: 7 }).map((value) => ({ ok: true as const, value })),
  fc.constantFrom("connection refused", "timeout").map((why) => ({ ok: false as const, why })),
)
const outcomeArb: fc.Arbitrary<WriteOutcome> = fc.oneof(
  fc.integer({ min: 1, max: 9 }).map((revision) => ({ outcome: "written" as const, revision })),
  fc.constant({ outcome: "conflict" as const }),
  fc.constant({ outcome: "unanswered" as const, why: "timeout" }),
)
const memoryArb: fc.Arbitrary<LeaseMemory> = fc.record({
  self: fc.constant("me"),
  held: fc.option(fc.record({ epoch: fc.integer({ min: 1, max: 6 }), acquiredAt: time, renewedAt: time }), {
    nil: undefined,
  }),
  observed: fc.option(fc.record({ revision: fc.integer({ min: 1, max: 4 }), at: time }), { nil: undefined }),
  highest: fc.integer({ min: 0, max: 7 }),
  waitingFor: fc.constantFrom(
    undefined,
    "other 1",
    "other 2",
    "(unreadable)",
    "(floor) timeout",
    "(floor) connection refused",
  ),
  lost: fc.boolean(),
  ready: fc.boolean(),
})
const factsArb: fc.Arbitrary<Facts> = fc
  .record({ read: readArb, at: time, floor: floorArb, outcome: outcomeArb, later: fc.integer({ min: 0, max: 12_000 }) })
  .map((f) => ({ ...f, later: f.at + f.later }))

describe("one look at the lease, as a program", () => {
  it("does what the core's decide and afterWrite decide on the same facts: the same reads in order, words, writes, memory and result", () => {
    fc.assert(
      fc.property(memoryArb, factsArb, (m, f) => {
        expect(lookOn(m, f)).toEqual(model(m, f))
      }),
      { numRuns: 2_000 },
    )
  })

  it("a record that cannot be read writes nothing: a candidate waits; a holder past its deadline has lost the lease, and says why", () => {
    const read = { ok: false as const, why: "the bucket cannot be reached: timeout" }
    const f: Facts = { read, at: 100, floor: { ok: true, value: 0 }, outcome: { outcome: "conflict" }, later: 100 }
    expect(lookOn(candidate("me"), f)).toMatchObject({
      asked: ["lease-record", "lease-now"],
      writes: [],
      said: [],
      holds: false,
      lost: undefined,
    })
    const holder: LeaseMemory = { ...candidate("me"), held: { epoch: 3, acquiredAt: 0, renewedAt: 0 } }
    const past = lookOn(holder, { ...f, at: s.renewDeadline })
    expect(past).toMatchObject({
      writes: [],
      said: [],
      holds: false,
      lost: `${lostSentence} (the bucket cannot be reached: timeout)`,
    })
    expect(past.memory).toMatchObject({ held: undefined, lost: true })
  })

  it("a floor that cannot be read takes no epoch: the candidate waits, says why once per reason", () => {
    const f: Facts = {
      read: { ok: true, value: { found: false } },
      at: 5,
      floor: { ok: false, why: "timeout" },
      outcome: { outcome: "written", revision: 1 },
      later: 5,
    }
    const first = lookOn(candidate("me"), f)
    expect(first).toMatchObject({
      asked: ["lease-record", "lease-now", "lease-epoch-floor"],
      writes: [],
      holds: false,
      said: [
        "[lease] the store's newest epoch cannot be read (timeout), so this controller takes no epoch yet; it waits as a candidate",
      ],
    })
    expect(lookOn(first.memory, f).said).toEqual([])
  })

  it("a holder does not read the floor: it renews its own epoch", () => {
    const holder: LeaseMemory = { ...candidate("me"), held: { epoch: 3, acquiredAt: 0, renewedAt: 0 }, ready: true }
    const record: LeaseRecord = {
      holder: "me",
      epoch: 3,
      acquiredAt: 0,
      renewedAt: 0,
      durationMs: s.duration,
      givenBack: false,
      ready: true,
    }
    const r = lookOn(holder, {
      read: { ok: true, value: { found: true, revision: 2, record } },
      at: 1_000,
      floor: { ok: false, why: "never asked" },
      outcome: { outcome: "written", revision: 3 },
      later: 1_200,
    })
    expect(r).toMatchObject({
      asked: ["lease-record", "lease-now", "lease-write", "lease-now"],
      said: [],
      holds: true,
      lost: undefined,
    })
    expect(r.writes).toEqual([{ write: "update", revision: 2, record: { ...record, renewedAt: 1_000 } }])
  })

  it("takes a free lease above the floor and says it holds it; a write refused (conflict) holds nothing and says nothing", () => {
    const f: Facts = {
      read: { ok: true, value: { found: false } },
      at: 5,
      floor: { ok: true, value: 4 },
      outcome: { outcome: "written", revision: 1 },
      later: 6,
    }
    const taken = lookOn(candidate("me"), f)
    expect(taken).toMatchObject({
      holds: true,
      said: [`[lease] ${holdingWords(5)}`],
      written: { holder: "me", epoch: 5 },
    })
    const refused = lookOn(candidate("me"), { ...f, outcome: { outcome: "conflict" } })
    expect(refused).toMatchObject({ holds: false, said: [], written: undefined, lost: undefined })
    expect(refused.memory.held).toBeUndefined()
  })

  it("another holder's record loses a holder's lease: the sentence handed back, not said, and nothing written", () => {
    const holder: LeaseMemory = { ...candidate("me"), held: { epoch: 3, acquiredAt: 0, renewedAt: 0 } }
    const other: LeaseRecord = {
      holder: "other",
      epoch: 4,
      acquiredAt: 0,
      renewedAt: 0,
      durationMs: s.duration,
      givenBack: false,
      ready: true,
    }
    const r = lookOn(holder, {
      read: { ok: true, value: { found: true, revision: 5, record: other } },
      at: 1_000,
      floor: { ok: true, value: 0 },
      outcome: { outcome: "conflict" },
      later: 1_000,
    })
    expect(r).toMatchObject({
      asked: ["lease-record", "lease-now"],
      said: [],
      writes: [],
      holds: false,
      lost: lostSentence,
    })
  })

  it("a candidate waiting on a holder says whom it waits for once", () => {
    const other: LeaseRecord = {
      holder: "other",
      epoch: 2,
      acquiredAt: 0,
      renewedAt: 0,
      durationMs: s.duration,
      givenBack: false,
      ready: true,
    }
    const f: Facts = {
      read: { ok: true, value: { found: true, revision: 1, record: other } },
      at: 0,
      floor: { ok: true, value: 0 },
      outcome: { outcome: "conflict" },
      later: 0,
    }
    const first = lookOn(candidate("me"), f)
    expect(first.said).toEqual([`[lease] ${waitingWords("other", 2)}`])
    expect(lookOn(first.memory, { ...f, at: 1_000 }).said).toEqual([])
  })
})

describe("the lease's catalogue", () => {
  it("names kinds of its own, none a controller's (the controller's log does not record the lease; kinds never mean two questions)", () => {
    const controllers = new Set(Object.values(catalogues).flatMap((c) => Object.keys(c)))
    for (const kind of Object.keys(leaseQuestions)) {
      expect(kind.startsWith("lease-"), kind).toBe(true)
      expect(controllers.has(kind), kind).toBe(false)
    }
  })
})
