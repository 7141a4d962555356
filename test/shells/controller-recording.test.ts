// `serve --record FILE` (issue 8): a recording appends (a restarted serve adds a `started` line and
// goes on), a torn last line is cut, and a log of another area is refused before anything is written.
// Bus and store errors never say a password (issue 14).
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { readControllerLine } from "@mesh-core/core/controller/log"
import { open as openBus } from "../../shells/src/bus/nats.ts"
import { withoutSecrets } from "@mesh-core/core/text/connection-url"
import { ControllerRecorder } from "../../shells/src/program/recorder.ts"
import * as Journal from "../../shells/src/journal.ts"
import { open as openStore } from "../../shells/src/store/postgres.ts"

const dir = mkdtempSync(join(tmpdir(), "mesh-core-controller-recording-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const settings = { settle: 3_000, bound: 6_000, every: 1_000, passes: 2 }

/** One serve run: opens the recording, records one tick, ends. */
const run = (file: string) => {
  const said: Array<string> = []
  const program = Effect.gen(function* () {
    const recorder = yield* ControllerRecorder
    yield* recorder.record({ fact: "tick" }, [{ q: { q: "plans-in-flight" }, a: { ok: true, value: [] } }])
  }).pipe(Effect.provide(ControllerRecorder.layerFile(file, settings)), Effect.provide(Journal.memoryLayer(said)))
  return Effect.runPromiseExit(program).then((exit) => ({ exit, said }))
}

const readAll = (file: string) => {
  let lastAt = 0
  return readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((text, i) => {
      const r = readControllerLine(i + 1, text, i === 0, lastAt)
      if (!r.ok) throw new Error(`line ${i + 1}: ${r.bad.field}: ${r.bad.problem}`)
      if (r.fact !== undefined) lastAt = r.fact.atMs
      return r.header !== undefined ? "header" : r.fact!.fact
    })
}

describe("serve --record", () => {
  it("a new file gets the header with the gate's settings; a second run appends a started line and goes on; every line reads as the controller's log", async () => {
    const file = join(dir, "day.jsonl")
    expect(Exit.isSuccess((await run(file)).exit)).toBe(true)
    expect(JSON.parse(readFileSync(file, "utf8").split("\n")[0]!)).toMatchObject({
      area: "controller",
      settings: { gate: { settle: "3s", bound: "6s", every: "1s", passes: 2 } },
    })
    const second = await run(file)
    expect(Exit.isSuccess(second.exit)).toBe(true)
    expect(second.said.some((l) => l.includes("appending to"))).toBe(true)
    expect(readAll(file)).toEqual(["header", "tick", "answer", "started", "tick", "answer"])
  })

  it("a last line torn by a kill mid-write is cut off and said, and the log goes on readable", async () => {
    const file = join(dir, "torn.jsonl")
    await run(file)
    appendFileSync(file, '{"at":"2026-12-03T00:00:00Z","fact":"ti')
    const r = await run(file)
    expect(r.said.some((l) => l.includes("cut short"))).toBe(true)
    expect(readAll(file)).toEqual(["header", "tick", "answer", "started", "tick", "answer"])
  })

  it("a log of another area (a provider's) is refused and left as it was", async () => {
    const file = join(dir, "provider.jsonl")
    const text = `${JSON.stringify({ format: "mesh-core.facts", version: 1, area: "provisioner", provider: { requirement: "postgres", node: "hq-2" } })}\n`
    writeFileSync(file, text)
    const r = await run(file)
    expect(Exit.isFailure(r.exit)).toBe(true)
    expect(String(Exit.isFailure(r.exit) ? r.exit.cause : "")).toContain("not a controller's fact log")
    expect(readFileSync(file, "utf8")).toBe(text)
  })
})

describe("no password in what the bus or the store say", () => {
  it("a bus that cannot be reached is named without its password", async () => {
    const exit = await Effect.runPromiseExit(Effect.scoped(openBus("nats://mesh:Sup3r-s3cret@127.0.0.1:1")))
    expect(Exit.isFailure(exit)).toBe(true)
    const said = String(Exit.isFailure(exit) ? exit.cause : "")
    expect(said).toContain("mesh:***@127.0.0.1:1")
    expect(said).not.toContain("Sup3r-s3cret")
  })

  it("a store that cannot be reached is named without its password", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(openStore("postgres://postgres:Sup3r-s3cret@127.0.0.1:1/test", "mesh")),
    )
    const said = String(Exit.isFailure(exit) ? exit.cause : "")
    expect(said).toContain("postgres:***@127.0.0.1:1")
    expect(said).not.toContain("Sup3r-s3cret")
  })

  it("an error that quotes the URL or the password, plain or percent-encoded, says neither", () => {
    const url = "nats://mesh:p%40ss%2Fw0rd@bus:4222"
    for (const text of [`connect to ${url} failed`, "auth failed for p@ss/w0rd", "auth failed for p%40ss%2Fw0rd"]) {
      const out = withoutSecrets(text, url)
      expect(out).not.toContain("p@ss/w0rd")
      expect(out).not.toContain("p%40ss%2Fw0rd")
    }
  })
})
