// `provide --record FILE` appends: a restarted provider adds a `started` line to the log it was
// given and never truncates it (issue 8); a line torn by a kill is cut off; a foreign file is
// refused; the fingerprint's key is kept beside the log, mode 0600, and reused (issue 14); of what the
// driver answered the pass, the facts are written and an announcement never is (issue 25).
import { spawnSync } from "node:child_process"
import { appendFileSync, closeSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { defaultSettings, type Fact } from "@mesh-core/core/provisioner/model"
import { openRecording, RecordingUnusable } from "../../shells/src/provisioner/recorder.ts"
import { cliPath } from "../support/cli.ts"

const provider = { resource: "postgres", receives: "/run/mesh/contributions/postgres.json", node: "hq-1" }
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-recording-"))
const doc = JSON.stringify({
  requirement: "postgres",
  given: [{ as: "letta", secret: "/run/secrets/letta", node: "hq-3", at: "hq-3" }],
})

/** One run of a provider: `passes` passes of letta created, then held; `torn` leaves half a line. */
const runOnce = (file: string, t0: number, secretText: string) => {
  const r = openRecording(file, provider, defaultSettings, new Date(t0))
  const facts: Array<Fact> = [
    { fact: "pass", at: t0 + 1, document: { read: "ok", text: doc } },
    { fact: "secret", at: t0 + 2, as: "letta", read: "ok", password: secretText },
    { fact: "create", at: t0 + 3, as: "letta", outcome: "ok" },
  ]
  for (const f of facts) r.write(f)
  closeSync(r.fd)
  return r.note
}

const simulate = (file: string) => spawnSync(process.execPath, [cliPath, "simulate", file], { encoding: "utf8" })

describe("recording", () => {
  it("what the driver answered is written when it is a fact of the log; an announcement is not", () => {
    const file = join(scratch, "answered.jsonl")
    const t0 = Date.parse("2026-10-05T06:00:00Z")
    const r = openRecording(file, provider, defaultSettings, new Date(t0))
    r.write({ fact: "pass", at: t0 + 1, document: { read: "ok", text: doc } })
    r.answered({ q: { q: "create" }, a: { fact: "create", at: t0 + 2, as: "letta", outcome: "ok" } })
    r.answered({ q: { q: "announce" }, a: undefined })
    closeSync(r.fd)
    const lines = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.fact ?? l.format)).toEqual(["mesh-core.facts", "pass", "create"])
  })

  it("a restarted provider appends a started line, a torn last line is dropped, and the day replays with nothing inferred", () => {
    const file = join(scratch, "day.jsonl")
    const t0 = Date.parse("2026-10-05T06:00:00Z")
    expect(runOnce(file, t0, "pw-letta\n")).toBeUndefined()
    const first = readFileSync(file, "utf8")
    appendFileSync(file, `{"at":"2026-10-05T06:00:05.000Z","fact":"pa`)
    const note = runOnce(file, t0 + 60_000, "pw-letta")
    expect(note).toMatch(/cut short \(\d+ bytes/)
    const text = readFileSync(file, "utf8")
    expect(text.startsWith(first)).toBe(true)
    const lines = text.trimEnd().split("\n")
    expect(lines.filter((l) => l.includes(`"format":"mesh-core.facts"`))).toHaveLength(1)
    expect(lines.filter((l) => l.includes(`"fact":"started"`))).toHaveLength(1)
    // The same password with and without its newline: one fingerprint, 128 bits, keyed.
    const prints = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.fact === "secret")
      .map((l) => l.fingerprint)
    expect(prints).toHaveLength(2)
    expect(prints[0]).toBe(prints[1])
    expect(prints[0]).toMatch(/^hmac-sha256:[0-9a-f]{32}$/)
    expect(text).not.toContain("pw-letta")
    expect(statSync(`${file}.key`).mode & 0o777).toBe(0o600)
    const r = simulate(file)
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("runs: 2 (the provider was restarted 1 times")
    expect(r.stdout).not.toContain("what-if:")
    // Each run's first success is announced, as each process's was.
    expect(r.stdout.match(/provisioner\.recovered letta why=first-success/g)).toHaveLength(2)
  })

  it("another provider's log, or a file that is no fact log, is refused and left as it was", () => {
    const file = join(scratch, "other.jsonl")
    runOnce(file, 0, "x")
    const before = readFileSync(file, "utf8")
    expect(() => openRecording(file, { ...provider, node: "hq-2" }, defaultSettings, new Date(1))).toThrow(
      RecordingUnusable,
    )
    expect(readFileSync(file, "utf8")).toBe(before)
    const notes = join(scratch, "notes.txt")
    writeFileSync(notes, "shopping list\nmilk\n")
    expect(() => openRecording(notes, provider, defaultSettings, new Date(1))).toThrow(/not a provider's fact log/)
    expect(readFileSync(notes, "utf8")).toBe("shopping list\nmilk\n")
  })
})
