// A model of the controller lease (seed 004, issue 13): candidates whose clocks are set apart and
// run at different rates (within the drift the settings allow), pauses between deciding to act and
// the act reaching the store, lost requests and lost answers on the bus, kills and restarts. The
// bucket is modelled as compare-and-set on a revision, the store as "refuse an epoch older than the
// newest seen". The rules, stated on the model and not by the functions under test:
// - at no real moment do two controllers both believe they may act;
// - acts the store accepted never interleave epochs, and one epoch is one holder;
// - each new holder's epoch is above every earlier one;
// - once the bus answers again and the controllers look, one of them holds the lease.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  afterWrite,
  candidate,
  decide,
  giveBack,
  holding,
  type LeaseMemory,
  unread,
  stopped,
  type LeaseWrite,
} from "@mesh-core/core/lease/lease"
import { leaseText, readLease, type LeaseRead } from "@mesh-core/core/lease/record"
import { leaseSettings, type LeaseSettings, maxDrift } from "@mesh-core/core/lease/settings"

interface Proc {
  id: string
  memory: LeaseMemory
  paused: boolean
  readonly rate: number
  readonly offset: number
}

interface World {
  t: number
  readonly settings: LeaseSettings
  kv: { text: string | undefined; keyRevision: number; lastRevision: number }
  store: { newest: number; accepted: Array<{ epoch: number; by: string }>; refused: number }
  inFlight: Array<{ proc: number; epoch: number; by: string }>
  procs: Array<Proc>
  acquisitions: Array<{ epoch: number; by: string }>
  restarts: number
  epochHolder: Map<number, string>
}

const localTime = (p: Proc, t: number) => Math.floor(p.offset + p.rate * t)

const readOf = (w: World): LeaseRead =>
  w.kv.text === undefined ? { found: false } : readLease(w.kv.keyRevision, w.kv.text)

/** The bucket: create only when absent, update only at the revision read. */
const applyWrite = (w: World, write: LeaseWrite): "conflict" | number => {
  if (
    write.write === "create" ? w.kv.text !== undefined : w.kv.keyRevision !== write.revision || w.kv.text === undefined
  )
    return "conflict"
  w.kv.lastRevision += 1
  w.kv.keyRevision = w.kv.lastRevision
  w.kv.text = leaseText(write.record)
  return w.kv.keyRevision
}

type Command =
  | { readonly c: "advance"; readonly ms: number }
  | {
      readonly c: "look"
      readonly who: number
      readonly readFails: boolean
      readonly requestLost: boolean
      readonly answerLost: boolean
    }
  | { readonly c: "act"; readonly who: number }
  | { readonly c: "land"; readonly index: number }
  | { readonly c: "pause" | "resume" | "kill" | "stop"; readonly who: number }

const fresh = (w: World, i: number) => {
  w.restarts += 1
  const id = `c${i}-${w.restarts}`
  return id
}

const look = (w: World, i: number, o: { readFails: boolean; requestLost: boolean; answerLost: boolean }) => {
  const p = w.procs[i]!
  if (p.paused) return
  if (p.memory.lost) {
    // Lost: the process exits, and is started again as a candidate.
    p.id = fresh(w, i)
    p.memory = candidate(p.id)
  }
  const at = localTime(p, w.t)
  if (o.readFails) {
    p.memory = unread(w.settings, p.memory, at).memory
    return
  }
  const d = decide(w.settings, p.memory, { read: readOf(w), at, floor: w.store.newest })
  p.memory = d.memory
  if (d.decision !== "write") return
  const written = o.requestLost ? "unanswered" : applyWrite(w, d.write)
  const outcome =
    written === "conflict"
      ? { outcome: "conflict" as const }
      : written === "unanswered" || o.answerLost
        ? { outcome: "unanswered" as const, why: "lost" }
        : { outcome: "written" as const, revision: written }
  const before = p.memory.held?.epoch
  p.memory = afterWrite(p.memory, d.write, outcome, at).memory
  const now = p.memory.held?.epoch
  if (now !== undefined && now !== before) w.acquisitions.push({ epoch: now, by: p.id })
}

const run = (w: World, cmd: Command) => {
  switch (cmd.c) {
    case "advance":
      w.t += cmd.ms
      return
    case "look":
      return look(w, cmd.who, cmd)
    case "act": {
      const p = w.procs[cmd.who]!
      // The act's gate: only while this process holds the lease by its own clock.
      if (!p.paused && holding(w.settings, p.memory, localTime(p, w.t)))
        w.inFlight.push({ proc: cmd.who, epoch: p.memory.held!.epoch, by: p.id })
      return
    }
    case "land": {
      // A write that reaches the store, however long after its act was decided (a pause, a slow network).
      if (w.inFlight.length === 0) return
      const k = cmd.index % w.inFlight.length
      const a = w.inFlight[k]!
      if (w.procs[a.proc]!.paused && w.procs[a.proc]!.id === a.by) return
      w.inFlight.splice(k, 1)
      if (a.epoch < w.store.newest) w.store.refused += 1
      else {
        w.store.newest = a.epoch
        w.store.accepted.push({ epoch: a.epoch, by: a.by })
      }
      return
    }
    case "pause":
      w.procs[cmd.who]!.paused = true
      return
    case "resume":
      w.procs[cmd.who]!.paused = false
      return
    case "kill": {
      // kill -9: nothing given back; started again as a new candidate.
      const p = w.procs[cmd.who]!
      p.id = fresh(w, cmd.who)
      p.memory = candidate(p.id)
      p.paused = false
      return
    }
    case "stop": {
      // SIGTERM: acts stop first, then the lease is given back under its revision.
      const p = w.procs[cmd.who]!
      if (p.paused) return
      const write = giveBack(p.memory, readOf(w), localTime(p, w.t))
      p.memory = stopped(p.memory)
      if (write !== undefined) applyWrite(w, write)
      return
    }
  }
}

/** No real moment at which two processes both believe they may act. */
const believers = (w: World) => w.procs.filter((p) => holding(w.settings, p.memory, localTime(p, w.t))).length

const settingsArb = fc
  .record({
    duration: fc.integer({ min: 1_000, max: 15_000 }),
    share: fc.double({ min: 0.2, max: 0.85, noNaN: true }),
    retryShare: fc.double({ min: 0.05, max: 0.9, noNaN: true }),
  })
  .map(({ duration, share, retryShare }) => {
    const deadline = Math.max(2, Math.floor(duration * share))
    return leaseSettings({
      duration: `${duration}ms`,
      renewDeadline: `${deadline}ms`,
      retry: `${Math.max(1, Math.floor(deadline * retryShare))}ms`,
    })
  })
  .filter((r) => r.ok)
  .map((r) => (r.ok ? r.settings : undefined!))

const commandArb = (n: number, s: LeaseSettings): fc.Arbitrary<Command> => {
  const who = fc.integer({ min: 0, max: n - 1 })
  return fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 2 * s.retry }).map((ms) => ({ c: "advance" as const, ms })) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: s.duration }).map((ms) => ({ c: "advance" as const, ms })) },
    {
      weight: 6,
      arbitrary: fc
        .record({
          who,
          readFails: fc.integer({ min: 0, max: 6 }).map((k) => k === 0),
          requestLost: fc.integer({ min: 0, max: 5 }).map((k) => k === 0),
          answerLost: fc.integer({ min: 0, max: 5 }).map((k) => k === 0),
        })
        .map((r) => ({ c: "look" as const, ...r })),
    },
    { weight: 4, arbitrary: who.map((w) => ({ c: "act" as const, who: w })) },
    { weight: 3, arbitrary: fc.nat().map((index) => ({ c: "land" as const, index })) },
    {
      weight: 2,
      arbitrary: fc.record({
        c: fc.constantFrom("pause" as const, "pause" as const, "resume" as const, "kill" as const, "stop" as const),
        who,
      }),
    },
  )
}

const scenario = fc.integer({ min: 2, max: 4 }).chain((n) =>
  settingsArb.chain((settings) =>
    fc.record({
      n: fc.constant(n),
      settings: fc.constant(settings),
      clocks: fc.array(
        fc.record({
          rate: fc.double({ min: 1 - maxDrift, max: 1 + maxDrift, noNaN: true }),
          offset: fc.integer({ min: 0, max: 86_400_000 }),
        }),
        { minLength: n, maxLength: n },
      ),
      commands: fc.array(commandArb(n, settings), { minLength: 1, maxLength: 200 }),
    }),
  ),
)

const world = (settings: LeaseSettings, clocks: ReadonlyArray<{ rate: number; offset: number }>): World => ({
  t: 1_000_000,
  settings,
  kv: { text: undefined, keyRevision: 0, lastRevision: 0 },
  store: { newest: 0, accepted: [], refused: 0 },
  inFlight: [],
  acquisitions: [],
  restarts: 0,
  epochHolder: new Map(),
  procs: clocks.map((c, i) => ({
    id: `c${i}-0`,
    memory: candidate(`c${i}-0`),
    paused: false,
    rate: c.rate,
    offset: c.offset,
  })),
})

describe("the controller lease, modelled with skewed clocks, pauses and lost messages", () => {
  it("never two controllers that both believe they may act; accepted acts never interleave epochs; each holder's epoch is new", () => {
    fc.assert(
      fc.property(scenario, ({ settings, clocks, commands }) => {
        const w = world(settings, clocks)
        for (const cmd of commands) {
          run(w, cmd)
          expect(believers(w)).toBeLessThanOrEqual(1)
        }
        // In the order the store accepted them, epochs never go back; and one epoch is one holder.
        const epochs = w.store.accepted.map((a) => a.epoch)
        expect(epochs).toEqual([...epochs].sort((a, b) => a - b))
        const holderOf = new Map<number, string>()
        for (const a of w.store.accepted) {
          expect(holderOf.get(a.epoch) ?? a.by).toBe(a.by)
          holderOf.set(a.epoch, a.by)
        }
        // Every acquisition's epoch is above every earlier one.
        for (let k = 1; k < w.acquisitions.length; k++)
          expect(w.acquisitions[k]!.epoch).toBeGreaterThan(w.acquisitions[k - 1]!.epoch)
      }),
      { numRuns: 400 },
    )
  })

  it("once the bus answers and every controller looks each retry, one of them holds the lease within twice its duration", () => {
    fc.assert(
      fc.property(scenario, ({ settings, clocks, commands }) => {
        const w = world(settings, clocks)
        for (const cmd of commands) run(w, cmd)
        for (const p of w.procs) p.paused = false
        const until = w.t + (2 * settings.duration) / (1 - maxDrift) + 2 * settings.retry
        while (w.t < until) {
          for (let i = 0; i < w.procs.length; i++)
            look(w, i, { readFails: false, requestLost: false, answerLost: false })
          expect(believers(w)).toBeLessThanOrEqual(1)
          w.t += settings.retry
        }
        expect(believers(w)).toBe(1)
      }),
      { numRuns: 200 },
    )
  })

  it("a holder that falls silent stops believing it holds before any candidate takes over, whatever the clocks' rates", () => {
    const rate = fc.oneof(
      fc.constantFrom(1 - maxDrift, 1 + maxDrift),
      fc.double({ min: 1 - maxDrift, max: 1 + maxDrift, noNaN: true }),
    )
    fc.assert(
      fc.property(
        settingsArb,
        fc.array(fc.record({ rate, offset: fc.integer({ min: 0, max: 86_400_000 }) }), { minLength: 2, maxLength: 3 }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 20 }),
        (settings, clocks, rounds, jitter) => {
          const w = world(settings, clocks)
          const quiet = { readFails: false, requestLost: false, answerLost: false }
          look(w, 0, quiet)
          expect(w.procs[0]!.memory.held?.epoch).toBe(1)
          for (let r = 0; r < rounds; r++) {
            w.t += settings.retry
            for (let i = 0; i < w.procs.length; i++) look(w, i, quiet)
          }
          w.procs[0]!.paused = true
          const until = w.t + 2 * settings.duration
          for (let k = 0; w.t < until; k++) {
            w.t += Math.max(1, Math.floor((settings.retry * jitter[k % jitter.length]!) / 1_000))
            for (let i = 1; i < w.procs.length; i++) {
              look(w, i, quiet)
              expect(believers(w)).toBeLessThanOrEqual(1)
            }
          }
          expect(w.procs.slice(1).filter((p) => p.memory.held !== undefined)).toHaveLength(1)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("a holder paused past its lease that wakes and acts is refused by the store (fencing), though it decided to act while it held", () => {
    const settings: LeaseSettings = { duration: 3_000, renewDeadline: 2_000, retry: 500 }
    const w = world(settings, [
      { rate: 1, offset: 0 },
      { rate: 1.04, offset: 5_000_000 },
    ])
    const quiet = { readFails: false, requestLost: false, answerLost: false }
    look(w, 0, quiet)
    run(w, { c: "act", who: 0 })
    expect(w.inFlight).toHaveLength(1)
    run(w, { c: "pause", who: 0 })
    look(w, 1, quiet)
    run(w, { c: "advance", ms: 3_100 })
    look(w, 1, quiet)
    expect(w.procs[1]!.memory.held?.epoch).toBe(2)
    run(w, { c: "act", who: 1 })
    run(w, { c: "land", index: 1 })
    run(w, { c: "resume", who: 0 })
    run(w, { c: "land", index: 0 })
    expect(w.store.accepted.map((a) => a.epoch)).toEqual([2])
    expect(w.store.refused).toBe(1)
    // And by its own clock it no longer holds: its next look says the lease is lost.
    expect(
      decide(settings, w.procs[0]!.memory, { read: readOf(w), at: localTime(w.procs[0]!, w.t), floor: w.store.newest })
        .decision,
    ).toBe("lost")
  })

  it("a plain put instead of compare-and-set lets two both take the lease (docker/libkv#31): the model bites", () => {
    const settings: LeaseSettings = { duration: 3_000, renewDeadline: 2_000, retry: 500 }
    const a = candidate("a")
    const b = candidate("b")
    const read: LeaseRead = { found: false }
    const da = decide(settings, a, { read, at: 0, floor: 0 })
    const db = decide(settings, b, { read, at: 0, floor: 0 })
    if (da.decision !== "write" || db.decision !== "write") throw new Error("both should try to take a free lease")
    // Both writes "succeed" as a put would let them.
    const ma = afterWrite(da.memory, da.write, { outcome: "written", revision: 1 }, 0).memory
    const mb = afterWrite(db.memory, db.write, { outcome: "written", revision: 2 }, 0).memory
    expect([holding(settings, ma, 1), holding(settings, mb, 1)]).toEqual([true, true])
    // With compare-and-set, the second create is refused.
    const w = world(settings, [{ rate: 1, offset: 0 }])
    expect(applyWrite(w, da.write)).toBe(1)
    expect(applyWrite(w, db.write)).toBe("conflict")
  })
})
