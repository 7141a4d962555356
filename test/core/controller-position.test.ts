// The standings follower's position in its stream (position.ts, issue 11), held to what it is for:
// whatever happens to a batch (kept, handed back, the follower restarted), every word after what
// the durable consumer of before acknowledged is kept, none before it, and the position never goes
// back; a stream made again is followed from its start. The model below is a stream of sequences
// and a follower that crashes where fast-check says.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { followingFrom, positionAfter, positionOf } from "@mesh-core/core/standings/position"

describe("the position a kept batch leaves", () => {
  it("is the highest sequence of the batch, in whatever order it came; none for an empty batch", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 40 })), (seqs) => {
        const p = positionAfter(seqs.map((seq) => ({ seq })))
        if (seqs.length === 0) expect(p).toBeUndefined()
        else expect(p).toBe(seqs.reduce((a, b) => Math.max(a, b)))
      }),
    )
  })
})

describe("where the follower follows from", () => {
  const maybe = fc.option(fc.nat({ max: 10_000 }), { nil: undefined })

  it("follows after the position kept, else after the durable's floor, else from the stream's first message", () => {
    fc.assert(
      fc.property(maybe, maybe, (kept, acked) => {
        const { from } = followingFrom(kept, acked, 10_000)
        if (kept !== undefined) expect(from).toBe(kept + 1)
        else if (acked !== undefined) expect(from).toBe(acked + 1)
        else expect(from).toBe(1)
      }),
    )
  })

  it("removes the durable only once a position is kept and the durable is still there", () => {
    fc.assert(
      fc.property(maybe, maybe, (kept, acked) => {
        expect(followingFrom(kept, acked, 10_000).removeDurable).toBe(kept !== undefined && acked !== undefined)
      }),
    )
  })

  it("follows a stream made again (its last message before the position kept) from its start, and says so; never otherwise", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000 }), maybe, fc.nat({ max: 10_000 }), (kept, acked, last) => {
        const start = followingFrom(kept, acked, last)
        if (kept > last) {
          expect(start).toEqual({
            from: 1,
            removeDurable: false,
            said: `the position kept, ${kept}, is past the stream's last message, ${last}: the stream was made again; following it from its start`,
          })
        } else {
          expect(start.said).toBeUndefined()
          expect(start.from).toBe(kept + 1)
        }
      }),
    )
    // No position kept: nothing to be past, whatever the stream holds.
    expect(followingFrom(undefined, undefined, 0)).toEqual({ from: 1, removeDurable: false })
  })

  // One step of the follower's day: a batch of up to `size` fetched and kept, or handed back (the
  // store failed), or the follower restarted (a crash, a new lease holder).
  const step = fc.oneof(
    fc.record({ kind: fc.constant("keep" as const), size: fc.integer({ min: 1, max: 7 }) }),
    fc.record({ kind: fc.constant("hand-back" as const), size: fc.integer({ min: 1, max: 7 }) }),
    fc.record({ kind: fc.constant("restart" as const) }),
  )

  it("keeps every word after the durable's floor, none before it, and never moves the position back, whatever fails", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.nat({ max: 40 }),
        fc.array(step, { maxLength: 40 }),
        (n, floor, steps) => {
          const acknowledged = Math.min(floor, n)
          let durable: number | undefined = acknowledged
          let kept: number | undefined
          const keptSeqs = new Set<number>()
          const follow = () => {
            const start = followingFrom(kept, durable, n)
            if (start.removeDurable) durable = undefined
            return start.from
          }
          let cursor = follow()
          const fetch = (size: number) =>
            Array.from({ length: Math.max(0, Math.min(size, n - cursor + 1)) }, (_, i) => ({ seq: cursor + i }))
          for (const s of [...steps, ...Array.from({ length: n + 1 }, () => ({ kind: "keep" as const, size: 7 }))]) {
            if (s.kind === "restart") {
              cursor = follow()
              continue
            }
            const batch = fetch(s.size)
            if (batch.length === 0) continue
            if (s.kind === "hand-back") {
              cursor = follow()
              continue
            }
            for (const { seq } of batch) keptSeqs.add(seq)
            const p = positionAfter(batch)!
            if (kept !== undefined) expect(p).toBeGreaterThan(kept)
            kept = p
            cursor = p + 1
          }
          expect([...keptSeqs].sort((a, b) => a - b)).toEqual(
            Array.from({ length: n - acknowledged }, (_, i) => acknowledged + i + 1),
          )
          // A restart after a position was kept leaves no durable behind.
          if (kept !== undefined) {
            follow()
            expect(durable).toBeUndefined()
          }
        },
      ),
    )
  })
})

describe("the position the store answered", () => {
  it("is none when no row was kept, and the row's sequence when one was", () => {
    expect(positionOf([])).toEqual({ ok: true, value: undefined })
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 50 }), (seq) => {
        expect(positionOf([{ seq }])).toEqual({ ok: true, value: seq })
      }),
    )
  })

  it("is refused, saying it is no stream_positions row, when the row is not one", () => {
    for (const row of [{ seq: "12" }, {}, { seq: null }, null, "12"]) {
      const read = positionOf([row])
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.why).toMatch(/^a stream_positions row the store answered is not one: /)
    }
  })
})
