// The controller lease's rules one at a time (seed 004, issue 13), as properties.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  afterWrite,
  candidate,
  decide,
  fencedWords,
  floorUnread,
  giveBack,
  givenBackWords,
  holding,
  holdingWords,
  lostSentence,
  unread,
  waitingWords,
} from "@mesh-core/core/lease/lease"
import { type LeaseRecord, leaseText, readLease } from "@mesh-core/core/lease/record"
import { defaultLeaseSettings, leaseSettings } from "@mesh-core/core/lease/settings"
import { heldBy, leaseState } from "@mesh-core/core/lease/view"

const s = defaultLeaseSettings
const recordArb: fc.Arbitrary<LeaseRecord> = fc.record({
  holder: fc.constantFrom("hq-1/4242/ab12", "hq-2/77/cd34"),
  epoch: fc.integer({ min: 1, max: 1_000 }),
  acquiredAt: fc.integer({ min: 0, max: 2e12 }),
  renewedAt: fc.integer({ min: 0, max: 2e12 }),
  durationMs: fc.integer({ min: 1, max: 60_000 }),
  givenBack: fc.boolean(),
  ready: fc.boolean(),
})

describe("the lease's settings", () => {
  it("client-go's defaults are safe, and the environment's spellings are read", () => {
    expect(leaseSettings({ duration: "15s", renewDeadline: "10s", retry: "2s" })).toEqual({
      ok: true,
      settings: defaultLeaseSettings,
    })
    expect(leaseSettings({ duration: "3s", renewDeadline: "2s", retry: "500ms" })).toEqual({
      ok: true,
      settings: { duration: 3_000, renewDeadline: 2_000, retry: 500 },
    })
  })
  it("refuses a renew deadline not well under the lease, and a retry not under the deadline", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 60_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        (d, r, t) => {
          const out = leaseSettings({ duration: `${d}ms`, renewDeadline: `${r}ms`, retry: `${t}ms` })
          // Safe: the holder's deadline, on a clock 5 % slow, ends before a candidate's wait on a clock 5 % fast.
          const safe = r / 0.95 < d / 1.05 && t < r
          expect(out.ok).toBe(safe)
        },
      ),
    )
    expect(leaseSettings({ duration: "soon", renewDeadline: "10s", retry: "2s" })).toEqual({
      ok: false,
      problem: "MESH_LEASE_DURATION: soon is not a duration above zero and at most 596h",
    })
  })
})

describe("the lease's record", () => {
  it("reads back what it wrote; bytes that are no record are unreadable, never nobody holding", () => {
    fc.assert(
      fc.property(recordArb, fc.integer({ min: 1, max: 1e9 }), (r, rev) => {
        expect(readLease(rev, leaseText(r))).toEqual({ found: true, revision: rev, record: r })
      }),
    )
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 1e9 }), (text, rev) => {
        const read = readLease(rev, text)
        expect(read.found).toBe(true)
        if (read.found && "unreadable" in read) expect(read.unreadable).toMatch(/^the lease's record cannot be read: /)
      }),
    )
  })
})

describe("a candidate", () => {
  it("waits, saying for whom, until it has seen the same revision for the lease's whole duration; then takes it with a greater epoch", () => {
    fc.assert(
      fc.property(
        recordArb.map((r) => ({ ...r, givenBack: false })),
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 120_000 }),
        (r, rev, t0, floor, later) => {
          const read = { found: true as const, revision: rev, record: r }
          const first = decide(s, candidate("me"), { read, at: t0, floor })
          expect(first.decision).toBe("wait")
          expect(first.said).toBe(waitingWords(r.holder, r.epoch))
          const second = decide(s, first.memory, { read, at: t0 + later, floor })
          if (later < r.durationMs) {
            expect(second.decision).toBe("wait")
            expect(second.said).toBeUndefined() // said once, not every look
          } else {
            if (second.decision !== "write" || second.write.write !== "update")
              throw new Error(`expected a take-over, got ${second.decision}`)
            expect(second.write.revision).toBe(rev)
            expect(second.write.record.epoch).toBe(Math.max(r.epoch, floor) + 1)
            expect(second.write.record.holder).toBe("me")
          }
        },
      ),
    )
  })

  it("a revision it has not seen starts the wait over, however old the holder's own times", () => {
    fc.assert(
      fc.property(
        recordArb.map((r) => ({ ...r, givenBack: false })),
        fc.integer({ min: 0, max: 1e12 }),
        (r, t0) => {
          const a = decide(s, candidate("me"), { read: { found: true, revision: 1, record: r }, at: t0, floor: 0 })
          const b = decide(s, a.memory, {
            read: { found: true, revision: 2, record: { ...r, renewedAt: 0 } },
            at: t0 + r.durationMs,
            floor: 0,
          })
          expect(b.decision).toBe("wait")
        },
      ),
    )
  })

  it("takes a lease given back at once, and an absent one with create, each above every epoch it knows of", () => {
    fc.assert(
      fc.property(recordArb, fc.integer({ min: 0, max: 5_000 }), (r, floor) => {
        const back = decide(s, candidate("me"), {
          read: { found: true, revision: 9, record: { ...r, givenBack: true } },
          at: 5,
          floor,
        })
        expect(back.decision === "write" && back.write.write === "update" && back.write.record.epoch).toBe(
          Math.max(r.epoch, floor) + 1,
        )
        const none = decide(s, candidate("me"), { read: { found: false }, at: 5, floor })
        expect(none.decision === "write" && none.write.write === "create" && none.write.record.epoch).toBe(floor + 1)
      }),
    )
  })
})

describe("a candidate that cannot read the store's newest epoch", () => {
  it("takes no epoch, says why once per reason, and once it reads the floor again numbers above it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("timeout", "connection refused"),
        fc.constantFrom("timeout", "connection refused"),
        fc.integer({ min: 0, max: 5_000 }),
        (why1, why2, floor) => {
          const a = floorUnread(s, candidate("me"), 0, why1)
          expect(a).toMatchObject({
            decision: "wait",
            said: `the store's newest epoch cannot be read (${why1}), so this controller takes no epoch yet; it waits as a candidate`,
          })
          const b = floorUnread(s, a.memory, 1, why2)
          expect(b.decision).toBe("wait")
          expect(b.said === undefined).toBe(why1 === why2)
          const c = decide(s, b.memory, { read: { found: false }, at: 2, floor })
          expect(c.decision === "write" && c.write.record.epoch).toBe(floor + 1)
        },
      ),
    )
  })
})

describe("the holder", () => {
  const take = (at: number) => {
    const d = decide(s, candidate("me"), { read: { found: false }, at, floor: 0 })
    if (d.decision !== "write") throw new Error("a free lease is taken")
    return afterWrite(d.memory, d.write, { outcome: "written", revision: 1 }, at)
  }

  it("says it holds epoch N, and acts only until its renew deadline after the last renewal that was written", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 30_000 }), (t0, dt) => {
        const { memory, said } = take(t0)
        expect(said).toBe(holdingWords(1))
        expect(holding(s, memory, t0 + dt)).toBe(dt < s.renewDeadline)
      }),
    )
  })

  it("a renewal not answered extends nothing; past the deadline the lease is lost, in the seed's words", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 9 }), (t0, k) => {
        const { memory } = take(t0)
        const read = readLease(
          1,
          leaseText({
            holder: "me",
            epoch: 1,
            acquiredAt: t0,
            renewedAt: t0,
            durationMs: s.duration,
            givenBack: false,
            ready: true,
          }),
        )
        const renew = decide(s, memory, { read, at: t0 + k * 1_000, floor: 0 })
        if (renew.decision !== "write") throw new Error("a holder within its deadline renews")
        const unanswered = afterWrite(
          renew.memory,
          renew.write,
          { outcome: "unanswered", why: "timeout" },
          t0 + k * 1_000,
        ).memory
        expect(holding(s, unanswered, t0 + s.renewDeadline)).toBe(false)
        const lost = unread(s, unanswered, t0 + s.renewDeadline)
        expect(lost).toMatchObject({ decision: "lost", said: lostSentence })
        expect(lostSentence).toBe(
          "the controller lease was lost; this controller stopped acting and stands down, a candidate again until it holds the lease",
        )
      }),
    )
  })

  it("loses it at once on reading another holder or another epoch", () => {
    fc.assert(
      fc.property(recordArb, (r) => {
        const { memory } = take(0)
        const d = decide(s, memory, {
          read: { found: true, revision: 2, record: { ...r, holder: "other" } },
          at: 1,
          floor: 0,
        })
        expect(d.decision).toBe("lost")
      }),
    )
  })

  it("gives it back under its own revision, keeping the epoch; the next holder's epoch is above it; gone back, nobody holds it", () => {
    const { memory } = take(0)
    const read = readLease(
      4,
      leaseText({
        holder: "me",
        epoch: 1,
        acquiredAt: 0,
        renewedAt: 0,
        durationMs: s.duration,
        givenBack: false,
        ready: true,
      }),
    )
    const w = giveBack(memory, read, 10)
    expect(w).toMatchObject({ write: "update", revision: 4, record: { epoch: 1, givenBack: true, holder: "me" } })
    // As status reads it: held by me before, given back (nobody holds it) after.
    expect(heldBy(leaseState(read, 10, 0))).toBe("me")
    expect(leaseState(readLease(5, leaseText(w!.record)), 10, 0).state).toBe("given-back")
    expect(givenBackWords(1)).toBe(
      "the controller lease (epoch 1) was given back, so the epoch is recorded as given back rather than found expired by the next holder",
    )
    expect(fencedWords(3, 4)).toContain(lostSentence)
  })
})
