// Seed 000's exact behaviour in the cases its comments name, as examples.
import { describe, expect, it } from "vitest"
import { formatDuration, parseDuration, rfc3339 } from "@mesh-core/core/duration"
import { classFor, classOf, clip } from "@mesh-core/core/provisioner/classes"
import { readContributions } from "@mesh-core/core/provisioner/contributions"
import { goPathEscape, goQueryEscape, passwordForms, scrub, withheld } from "@mesh-core/core/provisioner/scrub"
import { live, provider } from "../support/days.ts"
import type { PassScript } from "../support/days.ts"

const settings = {
  every: 5_000,
  verifyEvery: 60_000,
  holdsTimeout: 30_000,
  failingAfter: 300_000,
  sayAgainEvery: 900_000,
}
const passes = (n: number, over: Partial<PassScript> & { consumers?: Array<string> } = {}): Array<PassScript> =>
  Array.from({ length: n }, () => ({
    gap: 5_000,
    document: { kind: "given", consumers: over.consumers ?? ["letta"], version: 0 },
    secrets: {},
    outcomes: {},
    errorStyle: 0,
    ...over,
  }))

describe("seed 000's words", () => {
  it("reads errors' classes as ClassOf does, the adapter's word first", () => {
    expect(classOf('pq: password authentication failed for user "x"')).toBe("credentials-rejected")
    expect(classOf("HTTP 401 Unauthorized")).toBe("credentials-rejected")
    expect(classOf("dial tcp: connection refused")).toBe("unreachable")
    expect(classOf("unexpected EOF")).toBe("unreachable")
    expect(classOf("role already exists")).toBe("refused")
    expect(classFor("quota", "connection refused")).toBe("quota")
    expect(classFor("", "connection refused")).toBe("unreachable")
  })

  it("escapes as Go's url package, and scrubs every form", () => {
    expect(goQueryEscape("a b/c?d&e=f+g@h:i~j")).toBe("a+b%2Fc%3Fd%26e%3Df%2Bg%40h%3Ai~j")
    expect(goPathEscape("a b/c?d&e=f+g@h:i~j")).toBe("a%20b%2Fc%3Fd&e=f+g@h:i~j")
    expect(goQueryEscape("é")).toBe("%C3%A9")
    const forms = passwordForms("pass w/1")
    expect(scrub("x pass w/1 pass+w%2F1 pass%20w%2F1 y", forms)).toBe("x *** *** *** y")
    // the seed's "***" mask would leave a password of stars readable; it is withheld instead
    expect(scrub("pw is ** here", passwordForms("**"))).toBe(withheld)
    expect(clip("a".repeat(301))).toBe(`${"a".repeat(300)}…`)
  })

  it("formats and parses durations as Go does", () => {
    expect([0, 250, 5_000, 120_000, 3_600_000, 51_600_000, 90_500].map(formatDuration)).toEqual([
      "0s",
      "250ms",
      "5s",
      "2m0s",
      "1h0m0s",
      "14h20m0s",
      "1m30.5s",
    ])
    expect(["2m", "1h30m", "250ms", "90s", "0", "5", "m", "2x"].map(parseDuration)).toEqual([
      120_000,
      5_400_000,
      250,
      90_000,
      0,
      undefined,
      undefined,
      undefined,
    ])
    expect(rfc3339(Date.parse("2026-10-05T06:10:00.999Z"))).toBe("2026-10-05T06:10:00Z")
  })

  it("says each unusable document once, and 'readable again' when it is", () => {
    expect(readContributions({ read: "failed", error: "EACCES" }, provider)).toEqual({
      usable: false,
      why: `contributions file unreadable (${provider.receives}): EACCES`,
    })
    expect(readContributions({ read: "ok", text: "{" }, provider)).toMatchObject({
      usable: false,
      why: expect.stringContaining("is not JSON"),
    })
    expect(readContributions({ read: "ok", text: `{"requirement":"keycloak","given":[]}` }, provider)).toEqual({
      usable: false,
      why: `${provider.receives} is for keycloak, not postgres`,
    })
    expect(readContributions({ read: "ok", text: `{"given":null}` }, provider)).toEqual({
      usable: false,
      why: `${provider.receives} has no given list`,
    })
    expect(readContributions({ read: "ok", text: `{"given":[{"as":5}]}` }, provider)).toEqual({
      usable: false,
      why: `${provider.receives} is unusable: given[0] cannot be read as a grant`,
    })
    expect(
      readContributions({ read: "ok", text: `{"given":[{"secret":"/s"},{"as":"b","secret":"/s"}]}` }, provider),
    ).toMatchObject({ usable: true, given: [{ as: "b", secret: "/s" }] })
    // issue 14: a grant that lost its secret, or a null entry, makes the document unusable
    expect(
      readContributions({ read: "ok", text: `{"given":[{"as":"a"},{"as":"b","secret":"/s"}]}` }, provider),
    ).toMatchObject({ usable: false, why: expect.stringContaining("(a) has no secret") })
    expect(readContributions({ read: "ok", text: `{"given":[null,null]}` }, provider)).toMatchObject({
      usable: false,
      why: expect.stringContaining("given[0] cannot be read"),
    })
    const r = live([...passes(2), ...passes(3, { document: { kind: "unreadable" } }), ...passes(1)], settings, {
      letta: "pw-1234567",
    })
    const words = r.said.map((s) => s.text)
    expect(words.filter((w) => w.includes("unreadable"))).toHaveLength(1)
    expect(words.filter((w) => w === "contributions file readable again")).toHaveLength(1)
  })

  it("counts create failures: said when the text changes and every 240th time, then 'created, after N failed attempt(s)'", () => {
    const r = live([...passes(480, { outcomes: { letta: "fail" } }), ...passes(1)], settings, { letta: "pw-1234567" })
    const words = r.said.map((s) => s.text)
    expect(words.filter((w) => w.startsWith("letta: create failed, will retry"))).toHaveLength(3)
    expect(words).toContain("letta: created, after 480 failed attempt(s)")
    expect(words).toContain("letta: recovered after 40m0s and 480 failed attempt(s)")
  })

  it("a timed-out Holds is not evidence of loss and stops asking the rest of that pass", () => {
    const r = live(
      [
        ...passes(1, { consumers: ["letta", "grafana"] }),
        ...passes(12, { consumers: ["letta", "grafana"], outcomes: { letta: "timeout" } }),
      ],
      settings,
      { letta: "pw-1234567", grafana: "pw-7654321" },
    )
    const holds = r.requests.filter((q) => q.request.q === "holds")
    expect(holds.every((q) => q.request.as === "letta")).toBe(true)
    expect(r.requests.filter((q) => q.request.q === "create")).toHaveLength(2)
    expect(
      r.said.some((s) =>
        s.text.startsWith("letta: could not check the backend, will ask again: context deadline exceeded"),
      ),
    ).toBe(true)
  })

  it("not held is applied again, with the brake's words on the 1st and nth time", () => {
    const r = live([...passes(1), ...passes(4, { gap: 3_600_000, outcomes: { letta: "not-held" } })], settings, {
      letta: "pw-1234567",
    })
    const words = r.said.map((s) => s.text)
    expect(words).toContain("letta: the backend no longer holds it; applying again")
    expect(words).toContain(
      "letta: still not held after being applied again (2 times in a row) — create does not produce what holds checks; applying again",
    )
    expect(words).toContain("letta: next check in 2m0s")
    expect(words).toContain("letta: next check in 8m0s")
  })

  it("a withdrawn consumer that was failing is announced recovered, why withdrawn; a failed Remove is retried next pass", () => {
    const r = live(
      [
        ...passes(1),
        ...passes(130, { outcomes: { letta: "fail" }, consumers: ["letta", "grafana"] }),
        ...passes(1, { consumers: [], outcomes: { letta: "fail" } }),
        ...passes(1, { consumers: [] }),
      ],
      settings,
      { letta: "pw-1234567", grafana: "pw-7654321" },
    )
    const last = r.announced.filter((a) => a.body.consumer === "letta").at(-1)!
    expect(last.event).toBe("provisioner.recovered")
    expect(last.body).toMatchObject({ why: "withdrawn", node: "node-letta" })
    const removes = r.requests.filter((q) => q.request.q === "remove" && q.request.as === "letta")
    expect(removes).toHaveLength(2)
  })

  it("announces failing with exactly the seed's fields", () => {
    const r = live(passes(62, { outcomes: { letta: "fail" }, errorStyle: 4 }), settings, { letta: "pw-1234567" })
    const failing = r.announced.find((a) => a.event === "provisioner.failing")!
    expect(Object.keys(failing.body).sort()).toEqual([
      "attempts",
      "class",
      "consumer",
      "error",
      "node",
      "provider",
      "provider-node",
      "since",
    ])
    expect(failing.body).toMatchObject({
      provider: "postgres",
      "provider-node": "hq-1",
      consumer: "letta",
      node: "node-letta",
      class: "credentials-rejected",
      attempts: 61,
    })
    expect((failing.body as { error: string }).error.length).toBeLessThanOrEqual(301)
  })
})
