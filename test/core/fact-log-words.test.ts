// The provider's fact log refuses a line as `FILE:LINE: field: problem` (issue 14): the field and the
// problem are a contract a person reads to mend a log, so each is pinned word for word here; and the
// lines a recorder writes, and the times it reads, against the standard library.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  formatName,
  formatVersion,
  freshReader,
  parseRfc3339,
  parseRfc3339Checked,
  readLine,
  readLineBySchema,
  type ReaderState,
} from "@mesh-core/core/provisioner/log"
import { appendingTo, fingerprintWith, headerLine, lineOf, startedLine } from "@mesh-core/core/provisioner/log-writing"
import { defaultSettings, type Provider } from "@mesh-core/core/provisioner/model"

const provider: Provider = { resource: "postgres", receives: "/c.json", node: "hq-1" }
const header = JSON.stringify(headerLine(provider, defaultSettings, "2026-11-20T09:00:00.000Z"))
const step = (state: ReaderState, line: string): ReaderState => {
  const r = readLine(state, line, defaultSettings)
  if (!r.ok) throw new Error(`${r.bad.field}: ${r.bad.problem}`)
  return r.state
}
const afterHeader = step(freshReader, header)
const inPass = step(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"pass","document":{"read":"ok","text":"{}"}}`)

const refusal = (state: ReaderState, line: string) => {
  const fast = readLine(state, line, defaultSettings)
  // The Schema-only reader is the definition; the fast path refuses the same line the same way.
  expect(readLineBySchema(state, line, defaultSettings)).toEqual(fast)
  return fast.ok ? "read" : `${fast.bad.line}: ${fast.bad.field}: ${fast.bad.problem}`
}

describe("a line refused", () => {
  it("names the field and the problem, word for word", () => {
    expect(refusal(freshReader, `{"version":1}`)).toBe(
      `1: format: the first line must name the format: {"format":"mesh-core.facts","version":1,...}`,
    )
    expect(refusal(freshReader, `{"format":"mesh-core.facts","version":2}`)).toBe(
      `1: version: this reader knows version 1 of mesh-core.facts, not 2`,
    )
    expect(refusal(freshReader, `{"format":"mesh-core.facts"}`)).toBe(
      `1: version: this reader knows version 1 of mesh-core.facts, not undefined`,
    )
    expect(refusal(freshReader, header.replace(`"every":"5s"`, `"every":"fast"`))).toBe(
      `1: settings.every: "fast" is not a duration (say 5s, 2m, 1h30m)`,
    )
    expect(refusal(freshReader, header.replace(`"every":"5s"`, `"every":"0s"`))).toBe(
      `1: settings.every: every must be longer than 0s`,
    )
    expect(refusal(afterHeader, `[1]`)).toBe(`2: (line): not a JSON object`)
    expect(refusal(afterHeader, `null`)).toBe(`2: (line): not a JSON object`)
    expect(refusal(afterHeader, `"x"`)).toBe(`2: (line): not a JSON object`)
    expect(refusal(afterHeader, `{"at":`)).toMatch(/^2: \(line\): not JSON: /)
    expect(refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"tick"}`)).toBe(
      `2: fact: must be one of "pass", "secret", "holds", "create", "remove", "started", not "tick"`,
    )
    expect(refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z"}`)).toBe(
      `2: fact: must be one of "pass", "secret", "holds", "create", "remove", "started", not undefined`,
    )
    expect(refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"toString"}`)).toBe(
      `2: fact: must be one of "pass", "secret", "holds", "create", "remove", "started", not "toString"`,
    )
    expect(refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"pass","document":{"read":"maybe"}}`)).toBe(
      `2: document.read: must be one of "ok", "failed", "unchanged", not "maybe"`,
    )
    expect(refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"pass"}`)).toBe(
      `2: document.read: must be one of "ok", "failed", "unchanged", not undefined`,
    )
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:01.000Z","fact":"holds","as":"letta","outcome":"maybe"}`)).toBe(
      `3: outcome: must be one of "held", "not-held", "error", not "maybe"`,
    )
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:01.000Z","fact":"secret","as":"letta","read":"later"}`)).toBe(
      `3: read: must be one of "ok", "failed", not "later"`,
    )
    expect(refusal(afterHeader, `{"at":"1","fact":"pass","document":{"read":"ok","text":""}}`)).toBe(
      `2: at: "1" is not an RFC 3339 time`,
    )
    expect(
      refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"pass","document":{"read":"unchanged"}}`),
    ).toBe(`2: document.read: "unchanged" but no document was read in full before`)
    expect(refusal(afterHeader, `{"at":"2026-11-20T09:00:00.000Z","fact":"create","as":"x","outcome":"ok"}`)).toBe(
      `2: fact: a create answers a call of a pass, but no pass has begun`,
    )
    expect(refusal(inPass, `{"at":"2026-11-20T08:59:59.999Z","fact":"create","as":"x","outcome":"ok"}`)).toBe(
      `3: at: 2026-11-20T08:59:59.999Z is before the previous fact's time`,
    )
    expect(refusal(inPass, `{"at":"2026-11-20T08:59:59.999Z","fact":"started"}`)).toBe(
      `3: at: 2026-11-20T08:59:59.999Z is before the previous fact's time`,
    )
    expect(refusal(inPass, `{"at":"soon","fact":"started"}`)).toBe(`3: at: "soon" is not an RFC 3339 time`)
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:01.000Z","fact":"started","settings":{"holdsTimeout":"0"}}`)).toBe(
      `3: settings.holdsTimeout: holdsTimeout must be longer than 0s`,
    )
  })

  it("a header that names the format but not the provider; a line with another variant's fields in place of its own", () => {
    expect(refusal(freshReader, `{"format":"mesh-core.facts","version":1,"area":"provisioner"}`)).toBe(
      "1: provider: Missing key",
    )
    const t = `"at":"2026-11-20T09:00:01.000Z"`
    for (const line of [
      `{${t},"fact":"secret","as":"letta","read":"failed","fingerprint":"hmac-sha256:ab"}`,
      `{${t},"fact":"secret","as":"letta","read":"ok","error":"x"}`,
      `{${t},"fact":"secret","as":"letta","read":"failed","":"x"}`,
      `{${t},"fact":"secret","as":"letta","read":"ok","":"x"}`,
      `{${t},"fact":"holds","as":"letta","outcome":"error","":"x"}`,
      `{${t},"fact":"create","as":"letta","outcome":"error","":"x"}`,
      `{${t},"fact":"remove","as":"letta","outcome":"error","":"x"}`,
    ]) {
      expect(refusal(inPass, line), line).toMatch(/^3: (error|fingerprint): Missing key$/)
    }
  })

  it("a time equal to the previous fact's is read; a blank line is passed over, counted", () => {
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:00.000Z","fact":"create","as":"x","outcome":"ok"}`)).toBe("read")
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:00.000Z","fact":"started"}`)).toBe("read")
    const blank = readLine(inPass, "   ", defaultSettings)
    expect(blank).toEqual({ ok: true, state: { ...inPass, line: inPass.line + 1 }, fact: undefined })
  })
})

describe("the facts read", () => {
  it("each answer as the core is fed it, with the time of its line", () => {
    const at = Date.UTC(2026, 10, 20, 9, 0, 1)
    const read = (line: string) => {
      const r = readLine(inPass, line, defaultSettings)
      if (!r.ok) throw new Error(r.bad.problem)
      return r.fact
    }
    const t = `"at":"2026-11-20T09:00:01.000Z"`
    expect(read(`{${t},"fact":"secret","as":"letta","read":"ok","fingerprint":"hmac-sha256:ab"}`)).toEqual({
      fact: "secret",
      at,
      as: "letta",
      read: "ok",
      password: "fingerprint:hmac-sha256:ab",
    })
    expect(read(`{${t},"fact":"secret","as":"letta","read":"failed","error":"ENOENT"}`)).toEqual({
      fact: "secret",
      at,
      as: "letta",
      read: "failed",
      error: "ENOENT",
    })
    expect(read(`{${t},"fact":"holds","as":"letta","outcome":"held"}`)).toEqual({
      fact: "holds",
      at,
      as: "letta",
      outcome: "held",
    })
    expect(read(`{${t},"fact":"holds","as":"letta","outcome":"not-held"}`)).toEqual({
      fact: "holds",
      at,
      as: "letta",
      outcome: "not-held",
    })
    expect(
      read(`{${t},"fact":"holds","as":"letta","outcome":"error","error":"x","class":"timeout","timedOut":true}`),
    ).toEqual({ fact: "holds", at, as: "letta", outcome: "error", error: "x", class: "timeout", timedOut: true })
    expect(read(`{${t},"fact":"holds","as":"letta","outcome":"error","error":"x"}`)).toEqual({
      fact: "holds",
      at,
      as: "letta",
      outcome: "error",
      error: "x",
      class: undefined,
      timedOut: false,
    })
    expect(read(`{${t},"fact":"create","as":"letta","outcome":"ok"}`)).toEqual({
      fact: "create",
      at,
      as: "letta",
      outcome: "ok",
    })
    expect(read(`{${t},"fact":"create","as":"letta","outcome":"error","error":"x","class":"refused"}`)).toEqual({
      fact: "create",
      at,
      as: "letta",
      outcome: "error",
      error: "x",
      class: "refused",
    })
    expect(read(`{${t},"fact":"remove","as":"letta","outcome":"ok"}`)).toEqual({
      fact: "remove",
      at,
      as: "letta",
      outcome: "ok",
    })
    expect(read(`{${t},"fact":"remove","as":"letta","outcome":"error","error":"x"}`)).toEqual({
      fact: "remove",
      at,
      as: "letta",
      outcome: "error",
      error: "x",
    })
    expect(read(`{${t},"fact":"pass","document":{"read":"failed","error":"EACCES"}}`)).toEqual({
      fact: "pass",
      at,
      document: { read: "failed", error: "EACCES" },
    })
    expect(read(`{${t},"fact":"pass","document":{"read":"unchanged"}}`)).toEqual({
      fact: "pass",
      at,
      document: { read: "ok", text: "{}" },
    })
  })

  it("a failed document read leaves the last one in full as what `unchanged` means; a restart forgets it", () => {
    const failed = step(
      inPass,
      `{"at":"2026-11-20T09:00:01.000Z","fact":"pass","document":{"read":"failed","error":"x"}}`,
    )
    expect(failed.lastDocument).toBe("{}")
    const restarted = readLine(
      failed,
      `{"at":"2026-11-20T09:00:02.000Z","fact":"started","settings":{"every":"1m"}}`,
      defaultSettings,
    )
    expect(restarted).toEqual({
      ok: true,
      state: {
        ...failed,
        line: failed.line + 1,
        lastAt: Date.UTC(2026, 10, 20, 9, 0, 2),
        settings: { ...defaultSettings, every: 60_000 },
        lastDocument: undefined,
        passBegun: false,
      },
      fact: {
        fact: "started",
        at: Date.UTC(2026, 10, 20, 9, 0, 2),
        provider,
        settings: { ...defaultSettings, every: 60_000 },
      },
    })
  })
})

describe("the lines a recorder writes", () => {
  it("a header and a started line name the settings in Go's spelling", () => {
    expect(JSON.parse(header)).toEqual({
      format: formatName,
      version: formatVersion,
      area: "provisioner",
      provider,
      settings: { every: "5s", verifyEvery: "1m0s", holdsTimeout: "30s", failingAfter: "5m0s", sayAgainEvery: "15m0s" },
      recorded: "2026-11-20T09:00:00.000Z",
    })
    expect([formatName, formatVersion]).toEqual(["mesh-core.facts", 1])
    expect(startedLine(Date.UTC(2026, 10, 20, 9), defaultSettings, "r")).toEqual({
      at: "2026-11-20T09:00:00.000Z",
      fact: "started",
      recorded: "r",
      settings: { every: "5s", verifyEvery: "1m0s", holdsTimeout: "30s", failingAfter: "5m0s", sayAgainEvery: "15m0s" },
    })
  })

  it("a fact's line: an unchanged document short, a password as its fingerprint, an error scrubbed, absent fields left out", () => {
    const fp = fingerprintWith(new Uint8Array(32))
    expect(fp("s3cret")).toMatch(/^hmac-sha256:[0-9a-f]{32}$/)
    expect(fp("s3cret")).not.toBe(fingerprintWith(new Uint8Array(32).fill(1))("s3cret"))
    expect(lineOf({ fact: "pass", at: 0, document: { read: "ok", text: "{}" } }, fp, "{}", [])).toEqual({
      at: "1970-01-01T00:00:00.000Z",
      fact: "pass",
      document: { read: "unchanged" },
    })
    expect(lineOf({ fact: "pass", at: 0, document: { read: "ok", text: "{}" } }, fp, "[]", [])).toEqual({
      at: "1970-01-01T00:00:00.000Z",
      fact: "pass",
      document: { read: "ok", text: "{}" },
    })
    expect(lineOf({ fact: "pass", at: 0, document: { read: "failed", error: "x" } }, fp, "{}", [])).toEqual({
      at: "1970-01-01T00:00:00.000Z",
      fact: "pass",
      document: { read: "failed", error: "x" },
    })
    expect(lineOf({ fact: "secret", at: 0, as: "letta", read: "ok", password: "s3cret\n" }, fp, undefined, [])).toEqual(
      { at: "1970-01-01T00:00:00.000Z", fact: "secret", as: "letta", read: "ok", fingerprint: fp("s3cret") },
    )
    expect(lineOf({ fact: "secret", at: 0, as: "letta", read: "failed", error: "ENOENT" }, fp, undefined, [])).toEqual({
      at: "1970-01-01T00:00:00.000Z",
      fact: "secret",
      as: "letta",
      read: "failed",
      error: "ENOENT",
    })
    expect(
      lineOf(
        { fact: "holds", at: 0, as: "letta", outcome: "error", error: "x", class: undefined, timedOut: false },
        fp,
        undefined,
        [],
      ),
    ).toEqual({ at: "1970-01-01T00:00:00.000Z", fact: "holds", as: "letta", outcome: "error", error: "x" })
    expect(
      lineOf(
        { fact: "holds", at: 0, as: "letta", outcome: "error", error: "x", class: "timeout", timedOut: true },
        fp,
        undefined,
        [],
      ),
    ).toEqual({
      at: "1970-01-01T00:00:00.000Z",
      fact: "holds",
      as: "letta",
      outcome: "error",
      error: "x",
      class: "timeout",
      timedOut: true,
    })
    const line = lineOf(
      { fact: "create", at: 0, as: "letta", outcome: "error", error: "password=s3cret refused", class: undefined },
      fp,
      undefined,
      ["s3cret"],
    )
    expect(line["error"]).not.toContain("s3cret")
  })
})

describe("appending to a log", () => {
  it("only to this provider's own log, saying why not", () => {
    expect(appendingTo(header, provider)).toEqual({ ok: true })
    expect(appendingTo(header, { ...provider, node: "hq-2" })).toEqual({
      ok: false,
      problem: `it is the log of {"resource":"postgres","receives":"/c.json","node":"hq-1"}, not of {"resource":"postgres","receives":"/c.json","node":"hq-2"}; give another --record file`,
    })
    expect(appendingTo(header, { ...provider, resource: "nats" }).ok).toBe(false)
    expect(appendingTo(header, { ...provider, receives: "/d.json" }).ok).toBe(false)
    expect(appendingTo("", provider)).toEqual({
      ok: false,
      problem: "line 1 is blank; not a provider's fact log, so not appended to",
    })
    expect(appendingTo(`{"version":1}`, provider)).toEqual({
      ok: false,
      problem: `line 1: format: the first line must name the format: {"format":"mesh-core.facts","version":1,...}; not a provider's fact log, so not appended to`,
    })
  })
})

describe("RFC 3339 times", () => {
  it("the fast path answers as the definition, and both as Date for the recorders' own spelling", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
        const text = new Date(ms).toISOString()
        expect(parseRfc3339(text)).toBe(ms)
        expect(parseRfc3339Checked(text)).toBe(ms)
      }),
    )
  })

  it("the calendar and the clock's bounds", () => {
    expect(parseRfc3339("2024-02-29T00:00:00.000Z")).toBe(Date.UTC(2024, 1, 29))
    expect(parseRfc3339("2000-02-29T00:00:00Z")).toBe(Date.UTC(2000, 1, 29))
    expect(parseRfc3339("1900-02-29T00:00:00Z")).toBeUndefined()
    expect(parseRfc3339("2023-02-29T00:00:00.000Z")).toBeUndefined()
    expect(parseRfc3339("2026-04-31T00:00:00.000Z")).toBeUndefined()
    // A leap year adds its day to February alone (Date.parse itself reads April 31 as May 1).
    expect(parseRfc3339("2024-04-31T00:00:00.000Z")).toBeUndefined()
    expect(parseRfc3339("2026-12-31T23:59:59.999Z")).toBe(Date.UTC(2026, 11, 31, 23, 59, 59, 999))
    expect(parseRfc3339("2026-01-01T00:00:00.000Z")).toBe(Date.UTC(2026, 0, 1))
    for (const bad of [
      "2026-00-10T00:00:00.000Z",
      "2026-01-00T00:00:00.000Z",
      "2026-01-01T24:00:00.000Z",
      "2026-01-01T00:60:00.000Z",
      "2026-01-01T00:00:61.000Z",
      "2026-01-01T0a:00:00.000Z",
      "2026-01-01T00:00:00.00aZ",
      "2026-01-01X00:00:00.000Z",
      "2026-01-01T00-00:00.000Z",
      "2026-01-01T00:00-00.000Z",
      "2026-01-01T00:00:00,000Z",
      "2026-01-01T00:00:00.000+",
    ]) {
      expect(parseRfc3339(bad), bad).toBeUndefined()
    }
    expect(parseRfc3339("2026-01-01t00:00:00z")).toBe(Date.UTC(2026, 0, 1))
    expect(parseRfc3339("2026-01-01T01:00:00+01:00")).toBe(Date.UTC(2026, 0, 1))
    // The recorders' shape with an offset in place of its Z: the offset counts.
    expect(parseRfc3339("2026-10-05T06:10:00.001+02:00")).toBe(Date.UTC(2026, 9, 5, 4, 10, 0, 1))
    expect(parseRfc3339("2026-10-05T06:10:00.001-00:30")).toBe(Date.UTC(2026, 9, 5, 6, 40, 0, 1))
  })
})

describe("names an object already has", () => {
  it("a fact or a variant named after one (toString, constructor) is refused, not thrown on", () => {
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:01.000Z","fact":"constructor"}`)).toBe(
      `3: fact: must be one of "pass", "secret", "holds", "create", "remove", "started", not "constructor"`,
    )
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:01.000Z","fact":"holds","as":"letta","outcome":"toString"}`)).toBe(
      `3: outcome: must be one of "held", "not-held", "error", not "toString"`,
    )
    expect(refusal(inPass, `{"at":"2026-11-20T09:00:01.000Z","fact":"pass","document":{"read":"__proto__"}}`)).toBe(
      `3: document.read: must be one of "ok", "failed", "unchanged", not "__proto__"`,
    )
  })
})
