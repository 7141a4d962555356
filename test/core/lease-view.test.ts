// The lease as `status` and the gate read it (issue 13): who holds it, its epoch, since when, given
// back or expired; and the gate's `holder` fact, judged by the gate's own rule for the controller.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"
import { rfc3339 } from "@mesh-core/core/duration"
import { ComponentController, noManifest } from "@mesh-core/core/gate/judging/facts"
import { holderClockAllowanceMs, holderFact } from "@mesh-core/core/gate/judging/holder"
import { healthGood, judgeHealth } from "@mesh-core/core/gate/judging/judge"
import type { LeaseRecord } from "@mesh-core/core/lease/record"
import {
  heldBy,
  leaseState,
  leaseStatusJson,
  leaseStatusLine,
  type LeaseSeen,
  statusClockAllowanceMs,
} from "@mesh-core/core/lease/view"

const T = 1_780_000_000_000
const recordArb: fc.Arbitrary<LeaseRecord> = fc
  .record({
    holder: fc.constantFrom("hq-1/4242/ab12", "hq-2/77/cd34"),
    epoch: fc.integer({ min: 1, max: 1_000 }),
    acquiredAt: fc.integer({ min: T - 3_600_000, max: T }),
    renewedAt: fc.integer({ min: T - 600_000, max: T + 30_000 }),
    durationMs: fc.integer({ min: 1_000, max: 60_000 }),
    givenBack: fc.boolean(),
    ready: fc.boolean(),
    why: fc.option(fc.constantFrom("starting", "the store is migrating"), { nil: undefined }),
  })
  .map(({ why, ...r }): LeaseRecord => (why === undefined ? r : { ...r, why }))

const seenArb: fc.Arbitrary<LeaseSeen> = fc.oneof(
  fc.constant<LeaseSeen>({ found: false }),
  fc.record({ found: fc.constant(true as const), revision: fc.integer({ min: 1, max: 1e6 }), record: recordArb }),
  fc.record({
    found: fc.constant(true as const),
    revision: fc.integer({ min: 1, max: 1e6 }),
    unreadable: fc.constant("the lease's record cannot be read: epoch: an epoch"),
  }),
  fc.record({ unreachable: fc.constant("the bucket P_controller_lease cannot be read: TIMEOUT") }),
)

describe("the lease as status reads it", () => {
  it("names the holder, its epoch and since when; given back and expired are said as such, expiry only past the lease and the clock allowance", () => {
    fc.assert(
      fc.property(seenArb, fc.integer({ min: T - 60_000, max: T + 600_000 }), (seen, now) => {
        const s = leaseState(seen, now, statusClockAllowanceMs)
        const line = leaseStatusLine(s)
        const json = leaseStatusJson(s)
        if ("unreachable" in seen) {
          expect([s.state, line.includes(seen.unreachable)]).toEqual(["unreachable", true])
          return
        }
        if (!seen.found) {
          expect(line).toBe("controller lease: no controller has held it yet, so none acts")
          return
        }
        if (!("record" in seen)) {
          expect(json).toEqual({ state: "unreadable", why: seen.unreadable })
          return
        }
        const r = seen.record
        expect(line).toContain(r.holder)
        expect(line).toContain(`epoch ${r.epoch}`)
        expect(json["epoch"]).toBe(r.epoch)
        if (r.givenBack) {
          expect(s.state).toBe("given-back")
          expect(line).toContain(`given back by ${r.holder} (epoch ${r.epoch}) at ${rfc3339(r.renewedAt)}`)
          return
        }
        expect(line).toContain(`since ${rfc3339(r.acquiredAt)}`)
        const expired = now - r.renewedAt > r.durationMs + statusClockAllowanceMs
        expect(s.state).toBe(expired ? "expired" : "held")
        expect(line.startsWith("controller lease: EXPIRED")).toBe(expired)
        if (!expired) expect(line.endsWith("; it acts")).toBe(r.ready)
      }),
    )
  })

  it("says the seed's facts in words a person reads", () => {
    const r: LeaseRecord = {
      holder: "hq-1/4242/ab12",
      epoch: 7,
      acquiredAt: Date.parse("2026-12-03T08:00:00Z"),
      renewedAt: Date.parse("2026-12-03T08:10:00Z"),
      durationMs: 15_000,
      givenBack: false,
      ready: true,
    }
    const now = Date.parse("2026-12-03T08:10:03Z")
    expect(leaseStatusLine(leaseState({ found: true, revision: 4, record: r }, now, statusClockAllowanceMs))).toBe(
      "controller lease: held by hq-1/4242/ab12, epoch 7, since 2026-12-03T08:00:00Z (renewed 3s ago); it acts",
    )
    // What the holder says a person should know (issue 27), after whether it acts.
    const noted = { ...r, notes: ["the recording in /var/log/c.jsonl stopped: ENOSPC"] }
    expect(leaseStatusLine(leaseState({ found: true, revision: 4, record: noted }, now, statusClockAllowanceMs))).toBe(
      "controller lease: held by hq-1/4242/ab12, epoch 7, since 2026-12-03T08:00:00Z (renewed 3s ago); it acts; " +
        "it says: the recording in /var/log/c.jsonl stopped: ENOSPC",
    )
    expect(
      leaseStatusLine(leaseState({ found: true, revision: 4, record: r }, now + 60_000, statusClockAllowanceMs)),
    ).toBe(
      "controller lease: EXPIRED — held by hq-1/4242/ab12, epoch 7, since 2026-12-03T08:00:00Z, not renewed for 1m3s (its lease is 15s, " +
        "by this machine's clock): its holder is gone or paused, and no controller acts until a candidate takes it",
    )
    expect(
      leaseStatusLine(
        leaseState(
          { found: true, revision: 5, record: { ...r, givenBack: true, ready: false } },
          now,
          statusClockAllowanceMs,
        ),
      ),
    ).toBe(
      "controller lease: given back by hq-1/4242/ab12 (epoch 7) at 2026-12-03T08:10:00Z; no controller acts until a candidate takes it, at once",
    )
  })
})

const factsWith = (holder: GateFactsRecord["holder"], now: number): GateFactsRecord => ({
  now,
  reports: { "hq-3": { at: now - 1_000, current: true, outcome: "applied" } },
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder,
  health: { ok: true, value: {} },
})

describe("the gate's holder fact from the real lease", () => {
  it("the controller component is good exactly when a controller holds the lease, renewed within its lease and the clock allowance, says it is ready, and took it with or after the new build", () => {
    fc.assert(
      fc.property(
        seenArb,
        fc.integer({ min: T - 120_000, max: T + 600_000 }),
        fc.integer({ min: T - 3_600_000, max: T }),
        (seen, now, since) => {
          const fact = holderFact(seen, now)
          const word = judgeHealth("controller", ComponentController, noManifest, "hq-3", since, factsWith(fact, now))
          const r = "record" in seen ? seen.record : undefined
          const good =
            r !== undefined &&
            !r.givenBack &&
            r.ready &&
            now - r.renewedAt <= r.durationMs + holderClockAllowanceMs &&
            r.acquiredAt >= since - 60_000
          expect(word.health === healthGood).toBe(good)
          // Not known is never nobody: a lease that cannot be read is not read as free.
          expect(fact.ok).toBe(!("unreachable" in seen) && !(seen.found && !("record" in seen)))
          if (fact.ok && fact.value !== null) {
            expect(fact.value.taken).toBe(r!.acquiredAt)
            expect(fact.value.why).toContain(`${r!.holder} (epoch ${r!.epoch})`)
          }
          if (r?.givenBack) expect(fact).toEqual({ ok: true, value: null })
        },
      ),
    )
  })

  it("a holder gone quiet is not ready, and says since when", () => {
    const r: LeaseRecord = {
      holder: "hq-2/77/cd34",
      epoch: 3,
      acquiredAt: T - 600_000,
      renewedAt: T - 200_000,
      durationMs: 15_000,
      givenBack: false,
      ready: true,
    }
    const word = judgeHealth(
      "controller",
      ComponentController,
      noManifest,
      "hq-3",
      T - 600_000,
      factsWith(holderFact({ found: true, revision: 9, record: r }, T), T),
    )
    expect(word.why).toBe(
      `the controller holding the lease does not say it is ready: hq-2/77/cd34 (epoch 3) has not renewed the lease since ${rfc3339(T - 200_000)}: it is gone or paused`,
    )
  })
})

describe("the holder fact's why, word for word", () => {
  it("names the holder and its epoch, then what it says of itself: its why, or that it is ready", () => {
    const r: LeaseRecord = {
      holder: "hq-2/77/cd34",
      epoch: 3,
      acquiredAt: T - 1_000,
      renewedAt: T,
      durationMs: 15_000,
      givenBack: false,
      ready: true,
    }
    const why = (record: LeaseRecord) => {
      const f = holderFact({ found: true, revision: 9, record }, T)
      return f.ok && f.value !== null ? f.value.why : "(none)"
    }
    expect(why(r)).toBe("hq-2/77/cd34 (epoch 3) says it is ready")
    expect(why({ ...r, ready: false })).toBe("hq-2/77/cd34 (epoch 3)")
    expect(why({ ...r, ready: false, why: "the store is migrating" })).toBe(
      "hq-2/77/cd34 (epoch 3) says: the store is migrating",
    )
  })
})

describe("whom /readyz names on a controller that does not hold the lease", () => {
  it("the record's holder exactly when its lease is neither given back nor past its duration and the allowance; otherwise nobody", () => {
    fc.assert(
      fc.property(seenArb, fc.integer({ min: T - 60_000, max: T + 600_000 }), (seen, now) => {
        const r = "record" in seen ? seen.record : undefined
        const named = r !== undefined && !r.givenBack && now - r.renewedAt <= r.durationMs + statusClockAllowanceMs
        expect(heldBy(leaseState(seen, now, statusClockAllowanceMs))).toBe(named ? r!.holder : undefined)
      }),
    )
  })
})
