// A journal line as JSON (issue 10), as rules: the bracketed prefix is the area and never part of the
// message; a line that says something did not happen is a warning, whatever its area; every entry is
// one line of JSON that decodes by the Schema and gives back the line's message.
import fc from "fast-check"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  areaOf,
  defaultArea,
  JournalEntry,
  journalEntry,
  journalJson,
  levelOf,
  warningWords,
} from "@mesh-core/core/text/journal-line"

const quiet = fc.string().filter((s) => levelOf(s) === "info")
const areaName = fc.constantFrom("gate", "controller", "lease", "push", "Gate")

describe("the area", () => {
  it("`[area] message` is the area, lower-cased, and the message as said; a line without a prefix is the default area's, whole", () => {
    fc.assert(
      fc.property(areaName, fc.string(), (area, message) => {
        expect(areaOf(`[${area}] ${message}`)).toEqual({ area: area.toLowerCase(), message })
      }),
    )
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.startsWith("[")),
        (line) => {
          expect(areaOf(line)).toEqual({ area: defaultArea, message: line })
        },
      ),
    )
    expect(areaOf("[not an area] x")).toEqual({ area: defaultArea, message: "[not an area] x" })
  })
})

describe("the level", () => {
  it("a line holding any of the warning words, in any case, anywhere, is a warning; one holding none is info", () => {
    fc.assert(
      fc.property(quiet, fc.constantFrom(...warningWords), quiet, fc.boolean(), (before, w, after, upper) => {
        expect(levelOf(`${before}${upper ? w.toUpperCase() : w}${after}`)).toBe("warn")
      }),
    )
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(levelOf(s) === "warn").toBe(warningWords.some((w) => s.toLowerCase().includes(w)))
      }),
    )
  })

  it("the controller's own lines are read as a person would", () => {
    expect(
      journalEntry("[gate] the store cannot be read: ECONNREFUSED; no plan is judged until it answers", 0).level,
    ).toBe("warn")
    expect(journalEntry("[gate] letta's rollback could NOT be said on the bus: timeout", 0).level).toBe("warn")
    expect(journalEntry("[gate] letta-204: letta: gate on hq-3: judging (1 of 2 passes)", 0).level).toBe("info")
    expect(journalEntry("[controller] store postgres://postgres@127.0.0.1:5432/test schema mesh", 0).level).toBe("info")
  })
})

describe("the entry", () => {
  it("is one line of JSON, decodes by its Schema, keeps the time, the message and every field", () => {
    fc.assert(
      fc.property(
        fc.option(areaName, { nil: undefined }),
        fc.string(),
        fc.integer({ min: 0, max: 8.64e15 }),
        fc.dictionary(
          fc.string({ minLength: 1 }),
          fc.oneof(
            fc.string(),
            fc.integer(),
            fc.boolean(),
            fc.constant(null),
            fc.constant(NaN),
            fc.constant(undefined),
            fc.constant(12n),
          ),
        ),
        (area, message, at, fields) => {
          const text = journalJson(journalEntry(area === undefined ? message : `[${area}] ${message}`, at, fields))
          expect(text).not.toContain("\n")
          const back = Schema.decodeUnknownSync(JournalEntry)(JSON.parse(text))
          expect(back.time).toBe(new Date(at).toISOString())
          if (area !== undefined) expect(back.message).toBe(message)
          expect(Object.keys(back.fields).sort()).toEqual(Object.keys(fields).sort())
          for (const [k, v] of Object.entries(fields)) {
            const want =
              v === undefined
                ? null
                : typeof v === "number" && !Number.isFinite(v)
                  ? String(v)
                  : typeof v === "bigint"
                    ? String(v)
                    : v
            expect(back.fields[k]).toEqual(want)
          }
        },
      ),
    )
  })

  it("writes its keys in the documented order", () => {
    expect(
      journalJson(
        journalEntry("[lease] hq-1 holds the controller lease (epoch 3)", Date.UTC(2026, 11, 3, 8, 0), { epoch: 3 }),
      ),
    ).toBe(
      '{"time":"2026-12-03T08:00:00.000Z","level":"info","area":"lease","message":"hq-1 holds the controller lease (epoch 3)","fields":{"epoch":3}}',
    )
  })
})
