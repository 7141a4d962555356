// Whatever bytes a fact log holds, its readers answer a clean refusal (a field and a problem) or a
// fact, and never throw (issue 14): random text, and lines one edit away from valid ones.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { freshReader, parseRfc3339, readLine, type ReaderState } from "@mesh-core/core/provisioner/log"
import { readControllerLine } from "@mesh-core/core/controller/log"
import { defaultSettings } from "@mesh-core/core/provisioner/model"

const header = `{"format":"mesh-core.facts","version":1,"area":"provisioner","provider":{"resource":"postgres","receives":"/c.json","node":"hq-1"},"settings":{"every":"5s"}}`
const valid = [
  `{"at":"2026-11-20T09:00:00.000Z","fact":"pass","document":{"read":"ok","text":"{}"}}`,
  `{"at":"2026-11-20T09:00:00.010Z","fact":"secret","as":"letta","read":"ok","fingerprint":"hmac-sha256:00"}`,
  `{"at":"2026-11-20T09:00:00.020Z","fact":"create","as":"letta","outcome":"error","error":"x","class":"refused"}`,
  `{"at":"2026-11-20T09:00:00.030Z","fact":"holds","as":"letta","outcome":"error","error":"x","timedOut":true}`,
  `{"at":"2026-11-20T09:00:00.040Z","fact":"started","settings":{"every":"5s"}}`,
  `{"at":"2026-11-20T09:00:00.050Z","fact":"pass","document":{"read":"unchanged"}}`,
]
const afterHeader: ReaderState = (() => {
  const r = readLine(freshReader, header, defaultSettings)
  if (!r.ok) throw new Error(r.bad.problem)
  return r.state
})()
const inPass: ReaderState = (() => {
  const r = readLine(afterHeader, valid[0]!, defaultSettings)
  if (!r.ok) throw new Error(r.bad.problem)
  return r.state
})()

/** One edit of a valid line: a character dropped, doubled or replaced, or a piece cut off. */
const nearValid = fc
  .tuple(
    fc.constantFrom(header, ...valid),
    fc.nat(),
    fc.constantFrom("drop", "double", "replace", "cut"),
    fc.string({ maxLength: 3 }),
  )
  .map(([line, i, edit, s]) => {
    const at = i % (line.length + 1)
    switch (edit) {
      case "drop":
        return line.slice(0, at) + line.slice(at + 1)
      case "double":
        return line.slice(0, at) + line.slice(at, at + 1).repeat(2) + line.slice(at + 1)
      case "replace":
        return line.slice(0, at) + s + line.slice(at + 1)
      default:
        return line.slice(0, at)
    }
  })

const anyLine = fc.oneof(fc.string({ unit: "binary", maxLength: 200 }), nearValid, fc.json())

const clean = (r: { ok: boolean; bad?: { field: string; problem: string } }) => {
  if (r.ok) return
  expect(typeof r.bad!.field).toBe("string")
  expect(r.bad!.problem.length).toBeGreaterThan(0)
}

describe("fact-log readers", () => {
  it("the provisioner log's reader refuses cleanly or reads, and never throws, whatever the line", () => {
    fc.assert(
      fc.property(anyLine, fc.constantFrom(freshReader, afterHeader, inPass), (line, state) => {
        clean(readLine(state, line, defaultSettings))
      }),
      { numRuns: 3000 },
    )
  })

  it("the controller log's reader refuses cleanly or reads, and never throws, whatever the line", () => {
    fc.assert(
      fc.property(anyLine, fc.boolean(), (line, first) => {
        clean(readControllerLine(2, line, first, 0))
      }),
      { numRuns: 3000 },
    )
  })

  it("a corpus of malformed lines is each refused with the field named", () => {
    const table: ReadonlyArray<[ReaderState, string, string, RegExp]> = [
      [afterHeader, `{"at":"1","fact":"pass","document":{"read":"ok","text":""}}`, "at", /not an RFC 3339 time/],
      [
        afterHeader,
        `{"at":"2026-02-30T00:00:00Z","fact":"pass","document":{"read":"ok","text":""}}`,
        "at",
        /not an RFC 3339 time/,
      ],
      [
        afterHeader,
        `{"at":"2026-11-20 09:00:00","fact":"pass","document":{"read":"ok","text":""}}`,
        "at",
        /not an RFC 3339 time/,
      ],
      [freshReader, header.replace(`"every":"5s"`, `"every":"0s"`), "settings.every", /longer than 0s/],
      [
        afterHeader,
        `{"at":"2026-11-20T09:00:00Z","fact":"started","settings":{"verifyEvery":"0"}}`,
        "settings.verifyEvery",
        /longer than 0s/,
      ],
      [
        afterHeader,
        `{"at":"2026-11-20T09:00:00Z","fact":"started","settings":{"every":"fast"}}`,
        "settings.every",
        /not a duration/,
      ],
      [
        afterHeader,
        `{"at":"2026-11-20T09:00:00Z","fact":"pass","document":{"read":"unchanged"}}`,
        "document.read",
        /no document was read/,
      ],
      [
        afterHeader,
        `{"at":"2026-11-20T09:00:00Z","fact":"create","as":"x","outcome":"ok"}`,
        "fact",
        /no pass has begun/,
      ],
      [inPass, `{"at":"2026-11-20T08:00:00Z","fact":"create","as":"x","outcome":"ok"}`, "at", /before the previous/],
      [inPass, `{"at":"2026-11-20T09:00:00Z","fact":"create","as":7,"outcome":"ok"}`, "as", /./],
      [inPass, `[1,2]`, "(line)", /not a JSON object/],
      [inPass, `{"at":`, "(line)", /not JSON/],
      [freshReader, `{"format":"mesh-core.facts","version":2}`, "version", /version 1/],
    ]
    for (const [state, line, field, problem] of table) {
      const r = readLine(state, line, defaultSettings)
      expect(r.ok, line).toBe(false)
      if (!r.ok) {
        expect(r.bad.field, line).toBe(field)
        expect(r.bad.problem, line).toMatch(problem)
      }
    }
    expect(readControllerLine(2, `{"at":"1","fact":"tick"}`, false, 0)).toMatchObject({
      ok: false,
      bad: { field: "at" },
    })
  })

  it("parseRfc3339 takes RFC 3339 date-times only", () => {
    expect(parseRfc3339("2026-10-05T06:10:00Z")).toBe(Date.UTC(2026, 9, 5, 6, 10))
    expect(parseRfc3339("2026-10-05T08:10:00.5+02:00")).toBe(Date.UTC(2026, 9, 5, 6, 10, 0, 500))
    for (const bad of [
      "1",
      "2026",
      "2026-10-05",
      "2026-13-01T00:00:00Z",
      "2026-02-29T00:00:00Z",
      "2026-10-05T24:00:00Z",
      " 2026-10-05T06:10:00Z",
    ]) {
      expect(parseRfc3339(bad), bad).toBeUndefined()
    }
  })
})
