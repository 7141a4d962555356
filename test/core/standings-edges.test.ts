// The standings' edges a mutation run found unguarded: a batch against standings already kept writes
// nothing older, the words of a forget refused, the body's and the times' exact limits, and the
// refusals clipped to what a status line can hold.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { forget } from "@mesh-core/core/standings/forget"
import { applyWords, type Kept } from "@mesh-core/core/standings/standings"
import { StaleAfterSetting } from "@mesh-core/core/standings/status"
import { hear, keyText, parseRfc3339, type Word } from "@mesh-core/core/standings/word"

const base = Date.parse("2026-10-05T06:00:00Z")
const w = (at: number): Word => ({
  provider: "p",
  providerNode: "n",
  consumer: "c",
  state: "failing",
  at,
  consumerNode: "x",
  class: "k",
  error: "e",
  since: "2026-10-05T06:00:00Z",
  attempts: 1,
})

describe("the standings' edges", () => {
  it("a batch writes nothing for a word older than the standing kept", () => {
    const kept = w(base + 10)
    const r = applyWords(new Map([[keyText(kept), kept]]), [w(base + 5)])
    expect(r).toEqual({ writes: [], outcomes: ["older-than-kept"] })
    expect(applyWords(new Map([[keyText(kept), kept]]), [w(base + 11)]).writes).toEqual([w(base + 11)])
  })

  it("a forget counts only failing standings of its provider and consumer", () => {
    const f = (over: Partial<Kept>): Kept => ({
      ...w(base),
      provider: "identity",
      consumer: "letta",
      providerNode: "hq-2",
      ...over,
    })
    const ask = { provider: "identity", consumer: "letta", providerNode: undefined, by: "ana", at: base + 1 }
    expect(forget([f({ state: "recovered" }), f({ consumer: "chat" }), f({ provider: "postgres" })], ask)).toEqual({
      ok: false,
      why: "no failing standing of identity for letta to forget",
    })
    expect(
      forget(
        [f({}), f({ consumer: "chat", providerNode: "hq-4" }), f({ provider: "postgres", providerNode: "hq-5" })],
        ask,
      ),
    ).toMatchObject({ ok: true, was: f({}) })
  })

  it("a body of exactly 16,384 characters is read; a Mesh-At or an event too long to say is clipped to 80 characters", () => {
    const body = JSON.stringify({
      attempts: 1,
      class: "c",
      consumer: "letta",
      error: "",
      node: "n",
      provider: "p",
      "provider-node": "q",
      since: "2026-10-05T06:00:00Z",
    })
    const padded = body.slice(0, -1) + `,"pad":"${"x".repeat(16_384 - body.length - 9)}"}`
    expect(padded.length).toBe(16_384)
    expect(hear("provisioner.failing", padded, "2026-10-05T06:15:00Z", undefined).ok).toBe(true)
    const long = "9".repeat(100)
    expect(hear("provisioner.failing", body, long, undefined)).toEqual({
      ok: false,
      why: `no usable Mesh-At time ("${"9".repeat(79)}…): RFC 3339 with a year from 1970 to 9999`,
    })
    expect(hear("e".repeat(100), body, "2026-10-05T06:15:00Z", undefined)).toEqual({
      ok: false,
      why: `"${"e".repeat(79)}… is not a provider's word`,
    })
    expect(hear("e".repeat(78), body, "2026-10-05T06:15:00Z", undefined)).toEqual({
      ok: false,
      why: `"${"e".repeat(78)}" is not a provider's word`,
    })
  })

  it("an RFC 3339 time is the whole text, nothing before or after it", () => {
    expect(["x2026-10-05T06:00:00Z", "2026-10-05T06:00:00Zx", "2026-10-05T06:00:00+01:00x"].map(parseRfc3339)).toEqual([
      undefined,
      undefined,
      undefined,
    ])
  })

  it("MESH_STALE_AFTER refused says how to give it", () => {
    const r = Schema.decodeUnknownExit(StaleAfterSetting)("0s")
    expect(String(r)).toContain("give a duration longer than 0s and at most 596h, as in 30m (90s, 1h30m)")
  })
})
