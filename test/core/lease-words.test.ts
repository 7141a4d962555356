// The controller lease's words and edges (seed 004, issue 13), each stated on its own: the settings'
// refusals a person reads when serve will not start, the record's `field: problem`, `status`'s lines
// and JSON, and each reason a holder stops holding.
import { ReplicasSetting } from "@mesh-core/core/controller/settings"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  afterWrite,
  candidate,
  deadlineOf,
  decide,
  floorUnread,
  giveBack,
  holding,
  type LeaseMemory,
  lostSentence,
  notesNow,
  readyNow,
  stopped,
  unread,
} from "@mesh-core/core/lease/lease"
import { type LeaseRead, type LeaseRecord, leaseText, readLease } from "@mesh-core/core/lease/record"
import { defaultLeaseSettings, LeaseDurationText, leaseSettings, maxDrift } from "@mesh-core/core/lease/settings"
import {
  heldBy,
  leaseState,
  leaseStatusJson,
  leaseStatusLine,
  statusClockAllowanceMs,
} from "@mesh-core/core/lease/view"
import { Schema } from "effect"
import { FenceRow, fencedOf, fencedSaid, fencedSqlState } from "@mesh-core/core/lease/fence"

const s = defaultLeaseSettings

describe("the lease's settings, as serve refuses them", () => {
  it("names the variable whose text is no duration, or is zero", () => {
    expect(leaseSettings({ duration: "0", renewDeadline: "10s", retry: "2s" })).toEqual({
      ok: false,
      problem: "MESH_LEASE_DURATION: 0 is not a duration above zero and at most 596h",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "ten", retry: "2s" })).toEqual({
      ok: false,
      problem: "MESH_LEASE_RENEW_DEADLINE: ten is not a duration above zero and at most 596h",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "0", retry: "2s" })).toEqual({
      ok: false,
      problem: "MESH_LEASE_RENEW_DEADLINE: 0 is not a duration above zero and at most 596h",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "10s", retry: "often" })).toEqual({
      ok: false,
      problem: "MESH_LEASE_RETRY: often is not a duration above zero and at most 596h",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "10s", retry: "0" })).toEqual({
      ok: false,
      problem: "MESH_LEASE_RETRY: 0 is not a duration above zero and at most 596h",
    })
  })

  it("says the longest renew deadline the lease allows, and that the retry must be under the deadline", () => {
    // 15 s × 0.95 / 1.05 = 13.571… s: the longest safe deadline is below it.
    expect(leaseSettings({ duration: "15s", renewDeadline: "14s", retry: "2s" })).toEqual({
      ok: false,
      problem: "the renew deadline (14s) must be well under the lease (15s): at most 13.57s",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "13570ms", retry: "2s" }).ok).toBe(true)
    // At the bound itself (19 × 1.05 = 21 × 0.95): the deadline is not under the lease, so refused.
    expect(leaseSettings({ duration: "21ms", renewDeadline: "19ms", retry: "1ms" })).toEqual({
      ok: false,
      problem: "the renew deadline (19ms) must be well under the lease (21ms): at most 18ms",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "10s", retry: "10s" })).toEqual({
      ok: false,
      problem: "the retry (10s) must be shorter than the renew deadline (10s)",
    })
    expect(leaseSettings({ duration: "15s", renewDeadline: "10s", retry: "9999ms" }).ok).toBe(true)
    expect(maxDrift).toBe(0.05)
  })

  it("reads a duration above zero, and only 1, 3 or 5 replicas", () => {
    const text = Schema.decodeUnknownExit(LeaseDurationText)
    expect(text("15s")._tag).toBe("Success")
    expect(text("500ms")._tag).toBe("Success")
    expect(text("0")._tag).toBe("Failure")
    expect(text("soon")._tag).toBe("Failure")
    const replicas = Schema.decodeUnknownExit(ReplicasSetting)
    expect(["1", "2", "3", "4", "5"].map((r) => replicas(r)._tag)).toEqual([
      "Success",
      "Failure",
      "Success",
      "Failure",
      "Success",
    ])
  })
})

describe("the lease's record, unreadable", () => {
  it("says which field and what is wrong with it", () => {
    const r: LeaseRecord = {
      holder: "hq-1/1/ab",
      epoch: 1,
      acquiredAt: 0,
      renewedAt: 0,
      durationMs: 15_000,
      givenBack: false,
      ready: true,
    }
    expect(readLease(3, JSON.stringify({ ...r, epoch: 0 }))).toEqual({
      found: true,
      revision: 3,
      unreadable: "the lease's record cannot be read: epoch: an epoch: a whole number from 1",
    })
    expect(readLease(3, JSON.stringify({ ...r, renewedAt: 1.5 }))).toEqual({
      found: true,
      revision: 3,
      unreadable: "the lease's record cannot be read: renewedAt: a whole number of milliseconds",
    })
    expect(readLease(3, JSON.stringify({ ...r, durationMs: -1 }))).toMatchObject({
      unreadable: "the lease's record cannot be read: durationMs: a whole number of milliseconds",
    })
    expect(readLease(3, JSON.stringify({ ...r, acquiredAt: -1 }))).toMatchObject({
      unreadable: "the lease's record cannot be read: acquiredAt: a whole number of milliseconds",
    })
    expect(readLease(3, JSON.stringify({ ...r, epoch: 2.5 }))).toMatchObject({
      unreadable: "the lease's record cannot be read: epoch: an epoch: a whole number from 1",
    })
    expect(readLease(3, JSON.stringify({ ...r, epoch: 1 })).found).toBe(true)
    expect(readLease(3, JSON.stringify({ ...r, acquiredAt: 0, renewedAt: 0, durationMs: 0 }))).toEqual({
      found: true,
      revision: 3,
      record: { ...r, durationMs: 0 },
    })
  })
})

const record = (over: Partial<LeaseRecord> = {}): LeaseRecord => ({
  holder: "me",
  epoch: 1,
  acquiredAt: 100,
  renewedAt: 100,
  durationMs: s.duration,
  givenBack: false,
  ready: true,
  ...over,
})

const holder = (): LeaseMemory => {
  const d = decide(s, candidate("me"), { read: { found: false }, at: 100, floor: 0 })
  if (d.decision !== "write") throw new Error("a free lease is taken")
  return afterWrite(d.memory, d.write, { outcome: "written", revision: 1 }, 100).memory
}

describe("the holder", () => {
  it("renews its own record under the revision read: the same epoch and acquiredAt, renewed now, for the settings' duration, ready once its followers caught up", () => {
    // Taking epoch 1 is seeing it: the highest epoch this controller has seen is the one it holds.
    expect(holder().highest).toBe(1)
    // Not caught up yet: the renewal says not ready.
    const early = decide(s, holder(), {
      read: { found: true, revision: 7, record: record({ renewedAt: 4_000, durationMs: 1 }) },
      at: 5_000,
      floor: 0,
    })
    expect(early.decision === "write" && early.write.record.ready).toBe(false)
    const d = decide(s, readyNow(holder(), true), {
      read: { found: true, revision: 7, record: record({ renewedAt: 4_000, durationMs: 1 }) },
      at: 5_000,
      floor: 0,
    })
    expect(d).toMatchObject({ decision: "write", said: undefined })
    if (d.decision !== "write") return
    expect(d.write).toEqual({
      write: "update",
      revision: 7,
      record: {
        holder: "me",
        epoch: 1,
        acquiredAt: 100,
        renewedAt: 5_000,
        durationMs: s.duration,
        givenBack: false,
        ready: true,
      },
    })
    // What the holder says a person should know rides in its renewal (issue 27), and only while there is some.
    const noted = decide(s, notesNow(readyNow(holder(), true), ["the recording stopped"]), {
      read: { found: true, revision: 7, record: record({ renewedAt: 4_000, durationMs: 1 }) },
      at: 5_000,
      floor: 0,
    })
    expect(noted.decision === "write" && noted.write.record.notes).toEqual(["the recording stopped"])
    expect(notesNow(notesNow(holder(), ["x"]), [])).toEqual(holder())
    // The renewal written changes no epoch, so nothing is said again; the deadline moves to the renewal's time.
    const after = afterWrite(d.memory, d.write, { outcome: "written", revision: 8 }, 5_000)
    expect(after.said).toBeUndefined()
    expect(deadlineOf(s, after.memory)).toBe(5_000 + s.renewDeadline)
    expect(after.memory.observed).toEqual({ revision: 8, at: 5_000 })
  })

  it("stops holding on anything but its own record at its own epoch, not given back", () => {
    const m = holder()
    const lostOn = (read: Parameters<typeof decide>[2]["read"]) => decide(s, m, { read, at: 1_000, floor: 0 })
    for (const read of [
      { found: false as const },
      { found: true as const, revision: 2, unreadable: "the lease's record cannot be read: epoch: an epoch" },
      { found: true as const, revision: 2, record: record({ holder: "other" }) },
      { found: true as const, revision: 2, record: record({ epoch: 2 }) },
      { found: true as const, revision: 2, record: record({ givenBack: true }) },
    ]) {
      const d = lostOn(read)
      expect(d).toMatchObject({ decision: "lost", said: lostSentence })
      expect(d.memory.held).toBeUndefined()
      expect(d.memory.lost).toBe(true)
    }
    expect(lostOn({ found: true, revision: 2, record: record() }).decision).toBe("write")
  })

  it("stops at its renew deadline exactly, by its own clock", () => {
    const m = holder()
    expect(holding(s, m, 100 + s.renewDeadline - 1)).toBe(true)
    expect(holding(s, m, 100 + s.renewDeadline)).toBe(false)
    expect(
      decide(s, m, { read: { found: true, revision: 1, record: record() }, at: 100 + s.renewDeadline, floor: 0 })
        .decision,
    ).toBe("lost")
    expect(unread(s, m, 100 + s.renewDeadline - 1)).toEqual({ decision: "wait", memory: m, said: undefined })
    expect(unread(s, m, 100 + s.renewDeadline)).toMatchObject({ decision: "lost", said: lostSentence })
    expect(floorUnread(s, m, 100 + s.renewDeadline - 1, "timeout")).toEqual({
      decision: "wait",
      memory: m,
      said: undefined,
    })
    expect(floorUnread(s, m, 100 + s.renewDeadline, "timeout").decision).toBe("lost")
    expect(deadlineOf(s, m)).toBe(100 + s.renewDeadline)
    expect(deadlineOf(s, candidate("me"))).toBeUndefined()
  })

  it("once lost or stopped, it acts no more and writes nothing, whatever it reads", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5_000 }), fc.boolean(), (at, viaStop) => {
        const m = viaStop ? stopped(holder()) : { ...holder(), lost: true }
        expect(holding(s, m, 100)).toBe(false)
        expect(deadlineOf(s, m)).toBeUndefined()
        expect(decide(s, m, { read: { found: false }, at, floor: 0 }).decision).toBe("lost")
        expect(unread(s, m, at).decision).toBe("lost")
        expect(floorUnread(s, m, at, "timeout").decision).toBe("lost")
        expect(giveBack(m, { found: true, revision: 1, record: record() }, at)).toBeUndefined()
        const w = { write: "create" as const, record: record({ epoch: 9 }) }
        expect(afterWrite(m, w, { outcome: "written", revision: 3 }, at)).toEqual({ memory: m, said: undefined })
      }),
    )
  })

  it("a write refused or unanswered changes nothing it holds", () => {
    const m = holder()
    const w = { write: "update" as const, revision: 1, record: record({ renewedAt: 900 }) }
    expect(afterWrite(m, w, { outcome: "conflict" }, 900)).toEqual({ memory: m, said: undefined })
    expect(afterWrite(m, w, { outcome: "unanswered", why: "timeout" }, 900)).toEqual({ memory: m, said: undefined })
  })

  it("gives back only its own record at its own epoch, not yet given back; marked not ready, renewed at the time given back", () => {
    const m = holder()
    expect(giveBack(m, { found: true, revision: 4, record: record() }, 700)).toEqual({
      write: "update",
      revision: 4,
      record: { ...record(), renewedAt: 700, givenBack: true, ready: false },
    })
    expect(giveBack(m, { found: false }, 700)).toBeUndefined()
    expect(giveBack(m, { found: true, revision: 4, unreadable: "x" }, 700)).toBeUndefined()
    expect(giveBack(m, { found: true, revision: 4, record: record({ holder: "other" }) }, 700)).toBeUndefined()
    expect(giveBack(m, { found: true, revision: 4, record: record({ epoch: 2 }) }, 700)).toBeUndefined()
    expect(giveBack(m, { found: true, revision: 4, record: record({ givenBack: true }) }, 700)).toBeUndefined()
    expect(giveBack(candidate("me"), { found: true, revision: 4, record: record() }, 700)).toBeUndefined()
  })
})

describe("a candidate", () => {
  it("finding its own record not given back (a write answered too late), renews it at its epoch and since when it took it", () => {
    // It asked to take epoch 4 and heard no answer: the record says the write landed.
    const d = decide(
      s,
      { ...candidate("me"), took: 4 },
      {
        read: { found: true, revision: 5, record: record({ epoch: 4, acquiredAt: 50 }) },
        at: 900,
        floor: 9,
      },
    )
    expect(d).toEqual({
      decision: "write",
      said: undefined,
      memory: {
        self: "me",
        held: undefined,
        observed: { revision: 5, at: 900 },
        highest: 9,
        waitingFor: undefined,
        lost: false,
        ready: false,
        took: 4,
      },
      write: {
        write: "update",
        revision: 5,
        record: {
          holder: "me",
          epoch: 4,
          acquiredAt: 50,
          renewedAt: 900,
          durationMs: s.duration,
          givenBack: false,
          ready: false,
        },
      },
    })
    // Taken, it holds from the write, and says so with the epoch it holds.
    if (d.decision === "write")
      expect(afterWrite(d.memory, d.write, { outcome: "written", revision: 6 }, 900).said).toBe(
        "this controller holds the controller lease, epoch 4; it acts",
      )
  })

  it("finding its own record at an epoch this term did not take (a term of this process that stood down), takes it at once at a new epoch, never renews it (issue 26)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        fc.integer({ min: 0, max: 12 }),
        (epoch, took, floor) => {
          fc.pre(took !== epoch)
          const m: LeaseMemory = took === undefined ? candidate("me") : { ...candidate("me"), took }
          const d = decide(s, m, {
            read: { found: true, revision: 5, record: record({ epoch, acquiredAt: 50, renewedAt: 60 }) },
            at: 900,
            floor,
          })
          expect(d.decision).toBe("write")
          if (d.decision !== "write") return
          const next = Math.max(epoch, floor) + 1
          expect(d.write).toEqual({
            write: "update",
            revision: 5,
            record: { ...record({ epoch: next, acquiredAt: 900, renewedAt: 900 }), ready: false },
          })
          expect(d.memory.took).toBe(next)
          // Answered, it holds the new epoch; never the one its ended term held.
          const after = afterWrite(d.memory, d.write, { outcome: "written", revision: 6 }, 900)
          expect(after.memory.held?.epoch).toBe(next)
          expect(after.said).toBe(`this controller holds the controller lease, epoch ${next}; it acts`)
        },
      ),
    )
  })

  it("waits out bytes that are no record for its own lease's duration, saying so once", () => {
    const read = { found: true as const, revision: 3, unreadable: "the lease's record cannot be read: epoch: an epoch" }
    const a = decide(s, candidate("me"), { read, at: 1_000, floor: 2 })
    expect(a).toEqual({
      decision: "wait",
      said: "the controller lease is held by a record this controller cannot read; it waits as a candidate until it expires",
      memory: {
        self: "me",
        held: undefined,
        observed: { revision: 3, at: 1_000 },
        highest: 2,
        waitingFor: "(unreadable)",
        lost: false,
        ready: false,
      },
    })
    const b = decide(s, a.memory, { read, at: 1_000 + s.duration - 1, floor: 2 })
    expect(b).toMatchObject({ decision: "wait", said: undefined })
    const c = decide(s, b.memory, { read, at: 1_000 + s.duration, floor: 2 })
    expect(c).toMatchObject({
      decision: "write",
      write: {
        write: "update",
        revision: 3,
        record: { holder: "me", epoch: 3, acquiredAt: 1_000 + s.duration, renewedAt: 1_000 + s.duration },
      },
    })
  })

  it("says whom it waits for, in the seed's words, again when the holder or epoch changes", () => {
    const r = record({ holder: "hq-2/77/cd34", epoch: 6 })
    const a = decide(s, candidate("me"), { read: { found: true, revision: 1, record: r }, at: 0, floor: 0 })
    expect(a.said).toBe("the controller lease is held by hq-2/77/cd34 (epoch 6); this controller waits as a candidate")
    expect(a.memory.waitingFor).toBe("hq-2/77/cd34 6")
    const b = decide(s, a.memory, { read: { found: true, revision: 2, record: { ...r, epoch: 7 } }, at: 1, floor: 0 })
    expect(b.said).toBe("the controller lease is held by hq-2/77/cd34 (epoch 7); this controller waits as a candidate")
    const c = decide(s, b.memory, {
      read: { found: true, revision: 3, record: { ...r, epoch: 7, holder: "hq-3/1/ef" } },
      at: 2,
      floor: 0,
    })
    expect(c.said).toBe("the controller lease is held by hq-3/1/ef (epoch 7); this controller waits as a candidate")
  })

  it("remembers the highest epoch seen, never lowering it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 100 })), {
          minLength: 1,
          maxLength: 8,
        }),
        (looks) => {
          let m = candidate("me")
          let top = 0
          looks.forEach(([epoch, floor], i) => {
            m = decide(s, m, {
              read: { found: true, revision: i + 1, record: record({ holder: "other", epoch }) },
              at: i,
              floor,
            }).memory
            top = Math.max(top, epoch, floor)
            expect(m.highest).toBe(top)
          })
        },
      ),
    )
  })

  it("says the floor it cannot read once per reason, remembering it as such", () => {
    const a = floorUnread(s, candidate("me"), 0, "timeout")
    expect(a).toEqual({
      decision: "wait",
      said: "the store's newest epoch cannot be read (timeout), so this controller takes no epoch yet; it waits as a candidate",
      memory: { ...candidate("me"), waitingFor: "(floor) timeout" },
    })
    expect(floorUnread(s, a.memory, 1, "timeout")).toEqual({ decision: "wait", said: undefined, memory: a.memory })
  })
})

describe("who holds the lease, as the gate and status read it", () => {
  it("a record not given back; nothing found, unreadable bytes and a record given back are nobody", () => {
    const holder = (read: LeaseRead) => heldBy(leaseState(read, record().renewedAt, 0))
    expect(holder({ found: true, revision: 1, record: record() })).toBe(record().holder)
    expect(holder({ found: true, revision: 1, record: record({ givenBack: true }) })).toBeUndefined()
    expect(holder({ found: false })).toBeUndefined()
    expect(holder({ found: true, revision: 1, unreadable: "x" })).toBeUndefined()
  })

  it("status's lines and JSON, word for word", () => {
    const T = Date.parse("2026-12-03T08:10:00Z")
    const r = record({
      holder: "hq-1/4242/ab12",
      epoch: 7,
      acquiredAt: T - 600_000,
      renewedAt: T - 2_500,
      ready: false,
      why: "the store is migrating",
    })
    const held = leaseState({ found: true, revision: 4, record: r }, T, statusClockAllowanceMs)
    expect(held).toEqual({ state: "held", record: r, quietMs: 2_500 })
    expect(leaseStatusLine(held)).toBe(
      "controller lease: held by hq-1/4242/ab12, epoch 7, since 2026-12-03T08:00:00Z (renewed 2s ago); it does not say it is ready: the store is migrating",
    )
    const { why: _, ...noWhy } = r
    expect(leaseStatusLine(leaseState({ found: true, revision: 4, record: noWhy }, T, statusClockAllowanceMs))).toBe(
      "controller lease: held by hq-1/4242/ab12, epoch 7, since 2026-12-03T08:00:00Z (renewed 2s ago); it does not say it is ready",
    )
    expect(leaseStatusJson(held)).toEqual({
      state: "held",
      holder: "hq-1/4242/ab12",
      epoch: 7,
      since: "2026-12-03T08:00:00.000Z",
      renewedAt: "2026-12-03T08:09:57.500Z",
      quietMs: 2_500,
      leaseMs: s.duration,
      ready: false,
      why: "the store is migrating",
    })
    expect(
      leaseStatusJson(leaseState({ found: true, revision: 4, record: noWhy }, T, statusClockAllowanceMs)),
    ).not.toHaveProperty("why")
    // Expiry only past the lease and the clock allowance, by the reader's clock; a holder's clock ahead is quiet 0, never negative.
    const edge = T - 2_500 + s.duration + statusClockAllowanceMs
    expect(leaseState({ found: true, revision: 4, record: r }, edge, statusClockAllowanceMs).state).toBe("held")
    const expired = leaseState({ found: true, revision: 4, record: r }, edge + 1, statusClockAllowanceMs)
    expect(expired).toEqual({ state: "expired", record: r, quietMs: s.duration + statusClockAllowanceMs + 1 })
    expect(leaseStatusJson(expired)).toMatchObject({
      state: "expired",
      quietMs: s.duration + statusClockAllowanceMs + 1,
    })
    expect(leaseState({ found: true, revision: 4, record: r }, T - 10_000, statusClockAllowanceMs)).toMatchObject({
      quietMs: 0,
    })
    expect(statusClockAllowanceMs).toBe(5_000)
    const back = leaseState({ found: true, revision: 5, record: { ...r, givenBack: true } }, T, statusClockAllowanceMs)
    expect(leaseStatusJson(back)).toEqual({
      state: "given-back",
      holder: "hq-1/4242/ab12",
      epoch: 7,
      givenBackAt: "2026-12-03T08:09:57.500Z",
    })
    expect(leaseStatusJson(leaseState({ found: false }, T, statusClockAllowanceMs))).toEqual({ state: "none" })
    const unreadable = leaseState(
      { found: true, revision: 5, unreadable: "the lease's record cannot be read: epoch: an epoch" },
      T,
      statusClockAllowanceMs,
    )
    expect(leaseStatusLine(unreadable)).toBe(
      "controller lease: the lease's record cannot be read: epoch: an epoch; candidates wait it out as a holder's",
    )
    const unreachable = leaseState(
      { unreachable: "the bucket P_controller_lease cannot be read: TIMEOUT" },
      T,
      statusClockAllowanceMs,
    )
    expect(unreachable).toEqual({ state: "unreachable", why: "the bucket P_controller_lease cannot be read: TIMEOUT" })
    expect(leaseStatusLine(unreachable)).toBe(
      "controller lease: who holds it cannot be read: the bucket P_controller_lease cannot be read: TIMEOUT",
    )
    expect(leaseStatusJson(unreachable)).toEqual({
      state: "unreachable",
      why: "the bucket P_controller_lease cannot be read: TIMEOUT",
    })
  })
})

describe("the record's text", () => {
  it("is its JSON, read back as itself", () => {
    expect(leaseText(record())).toBe(
      '{"holder":"me","epoch":1,"acquiredAt":100,"renewedAt":100,"durationMs":15000,"givenBack":false,"ready":true}',
    )
  })
})

describe("a fenced write's detail", () => {
  it("a refusal whose detail cannot be read has no epochs, and says so without them; with both epochs known, it names them", () => {
    for (const detail of [
      undefined,
      "",
      "{}",
      '{"acting":2}',
      '{"acting":-1,"newest":3}',
      '{"acting":1.5,"newest":3}',
      "Stryker was here!",
    ]) {
      expect(fencedOf(fencedSqlState, detail)).toEqual({ acting: undefined, newest: undefined })
    }
    expect(fencedOf(fencedSqlState, '{"acting":0,"newest":3}')).toEqual({ acting: 0, newest: 3 })
    const general = `the store refused a write under an epoch older than the newest it has seen, so another controller holds the lease; ${lostSentence}`
    expect(fencedSaid({ acting: 2, newest: undefined })).toBe(general)
    expect(fencedSaid({ acting: undefined, newest: 3 })).toBe(general)
  })

  it("the store's newest epoch is read from its text, a whole number from 0", () => {
    const row = Schema.decodeUnknownExit(FenceRow)
    expect(row({ epoch: "12" })).toMatchObject({ _tag: "Success", value: { epoch: 12 } })
    expect(row({ epoch: "0" })).toMatchObject({ _tag: "Success", value: { epoch: 0 } })
    expect(row({ epoch: "-1" })._tag).toBe("Failure")
    expect(row({ epoch: "1.5" })._tag).toBe("Failure")
    expect(row({})._tag).toBe("Failure")
  })
})
