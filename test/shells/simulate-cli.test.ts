// `mesh-controller simulate` as a person runs it: the shipped examples, bad input, --json, --set.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync, gzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { examples, textOf } from "../../examples/generate.ts"
import { cliPath } from "../support/cli.ts"

const top = join(import.meta.dirname, "../..")
const cli = cliPath
const run = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: top, encoding: "utf8", maxBuffer: 256 << 20 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-simulate-"))
const small = readFileSync(join(top, "examples/small.facts.jsonl"), "utf8").split("\n")
const withLine = (n: number, text: string): string => {
  const file = join(scratch, `bad-${n}-${Math.abs(text.length)}.jsonl`)
  const lines = [...small]
  lines[n - 1] = text
  writeFileSync(file, lines.join("\n"))
  return file
}

describe("simulate", () => {
  it("the shipped examples are what examples/generate.ts writes, not edited by hand", () => {
    for (const name of Object.keys(examples) as Array<keyof typeof examples>) {
      const raw = readFileSync(join(top, "examples", name))
      const shipped = name.endsWith(".gz") ? gunzipSync(raw).toString("utf8") : raw.toString("utf8")
      expect(shipped === textOf(name), `${name} differs from what the generator writes; run npm run examples`).toBe(
        true,
      )
    }
  })

  it("the issue-179 day names every failing consumer, since when, as credentials-rejected, and its recovery", () => {
    const r = run("simulate", "examples/identity-issue-179.facts.jsonl.gz")
    expect(r.code).toBe(0)
    for (const [as, node] of [
      ["letta", "hq-3"],
      ["grafana", "hq-1"],
      ["outline", "hq-4"],
    ]) {
      expect(r.out).toContain(
        `ANNOUNCED  provisioner.failing ${as} on ${node}: credentials-rejected since 2026-10-05T06:10:00Z, 61 attempts`,
      )
      expect(r.out).toContain(
        `2026-10-05T20:30:00Z  ANNOUNCED  provisioner.recovered ${as} on ${node} (failing since 2026-10-05T06:10:00Z, 10320 attempts)`,
      )
      expect(r.out).toMatch(
        new RegExp(
          `  ${as}: \\d+ calls, 10320 failed\\n    failing since 2026-10-05T06:10:00Z as credentials-rejected, announced 57 times, 10320 attempts; recovered 2026-10-05T20:30:00Z \\(succeeded\\) after 14h20m0s`,
        ),
      )
    }
    expect(r.out).toContain("summary: 82950 facts in 12840 passes")
    expect(r.err).toBe("")
  })

  it("--json prints every decision as a JSON line, then the summary", () => {
    const r = run("simulate", "examples/small.facts.jsonl", "--json")
    expect(r.code).toBe(0)
    const lines = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    const last = lines.pop()
    expect(last.summary.consumers.grafana.runs[0]).toMatchObject({
      class: "unreachable",
      since: "2026-11-20T09:05:00Z",
      why: "succeeded",
    })
    expect(new Set(lines.map((l) => l.kind))).toEqual(new Set(["said", "announced", "called"]))
    expect(lines.every((l) => typeof l.at === "string" && !Number.isNaN(Date.parse(l.at)))).toBe(true)
  })

  it("--set replays the same day under other settings", () => {
    const asRecorded = run("simulate", "examples/small.facts.jsonl")
    const sooner = run(
      "simulate",
      "examples/small.facts.jsonl",
      "--set",
      "failingAfter=30s",
      "--set",
      "sayAgainEvery=1m",
    )
    expect(asRecorded.out).toContain("2026-11-20T09:07:00Z  ANNOUNCED  provisioner.failing grafana")
    expect(sooner.out).toContain("2026-11-20T09:06:00Z  ANNOUNCED  provisioner.failing grafana")
    expect(sooner.code).toBe(0)
  })

  it("a bad setting stops it with exit code 2, naming the setting", () => {
    const r = run("simulate", "examples/small.facts.jsonl", "--set", "failingAftr=2m")
    expect(r.code).toBe(2)
    expect(r.err).toContain(`no setting "failingAftr"`)
    expect(r.out).toBe("")
    expect(run("simulate", "examples/small.facts.jsonl", "--set", "failingAfter=soon").err).toContain("give a duration")
  })

  const badLines: Array<[number, string, string]> = [
    [7, "{not json", ":7: (line): not JSON"],
    [7, `{"at":"2026-11-20T09:00:30.000Z","fact":"create","as":5,"outcome":"ok"}`, ":7: as: Expected string"],
    [
      7,
      `{"at":"2026-11-20T09:00:30.000Z","fact":"crate","as":"x","outcome":"ok"}`,
      `:7: fact: must be one of "pass", "secret", "holds", "create", "remove", "started", not "crate"`,
    ],
    [
      7,
      `{"at":"2026-11-20T09:00:30.000Z","fact":"create","as":"x","outcome":"maybe"}`,
      `:7: outcome: must be one of "ok", "error", not "maybe"`,
    ],
    [7, `{"at":"yesterday","fact":"create","as":"x","outcome":"ok"}`, `:7: at: "yesterday" is not an RFC 3339 time`],
    [
      7,
      `{"at":"2026-11-20T08:00:00.000Z","fact":"create","as":"x","outcome":"ok"}`,
      ":7: at: 2026-11-20T08:00:00.000Z is before the previous fact's time",
    ],
    [7, `{"at":"2026-11-20T09:00:30.000Z","fact":"pass","document":{"read":"ok"}}`, ":7: document.text: Missing key"],
    [
      1,
      `{"format":"mesh-core.facts","version":9}`,
      ":1: version: this reader knows version 1 of mesh-core.facts, not 9",
    ],
    [1, `{"fact":"pass"}`, ":1: format: the first line must name the format"],
  ]
  for (const [n, text, said] of badLines) {
    it(`a bad line stops it with FILE:LINE: field: problem, exit code 2, and nothing else printed (${said})`, () => {
      const file = withLine(n, text)
      const r = run("simulate", file)
      expect(r.code).toBe(2)
      expect(r.err).toBe(`${file}${said}${r.err.slice(file.length + said.length)}`)
      expect(r.err.trim().split("\n")).toHaveLength(1)
      expect(r.out).toBe("")
    })
  }

  it("a file that cannot be read is said, exit code 2", () => {
    const r = run("simulate", join(scratch, "missing.jsonl"))
    expect(r.code).toBe(2)
    expect(r.err).toContain("missing.jsonl: cannot be read: ENOENT")
    expect(r.out).toBe("")
  })

  it("--help names the command, its flags and examples", () => {
    const r = run("simulate", "--help")
    expect(r.code).toBe(0)
    for (const word of ["--json", "--set", "failingAfter", "examples/identity-issue-179.facts.jsonl.gz"])
      expect(r.out).toContain(word)
  })

  it("refuses bad input at once, in bounded memory: a fifo, a directory, invalid UTF-8, an over-long line, a .gz that expands to one", () => {
    const fifo = join(scratch, "pipe.jsonl")
    spawnSync("mkfifo", [fifo])
    const started = Date.now()
    const piped = run("simulate", fifo)
    expect(piped.code).toBe(2)
    expect(piped.err).toContain("a named pipe (fifo)")
    expect(Date.now() - started).toBeLessThan(10_000)
    const dir = run("simulate", scratch)
    expect(dir.code).toBe(2)
    expect(dir.err).toContain("a directory")
    const latin1 = join(scratch, "latin1.jsonl")
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from(`${small[0]}\n{"at":"`), Buffer.from([0xff, 0xfe]), Buffer.from(`"}\n`)]),
    )
    const notUtf8 = run("simulate", latin1)
    expect(notUtf8.code).toBe(2)
    expect(notUtf8.err).toMatch(/latin1\.jsonl:2: \(line\): not UTF-8/)
    // 20 MB of one line, gzipped to a few KB: refused before it is kept whole (the limit is 16 MiB).
    const bomb = join(scratch, "bomb.jsonl.gz")
    writeFileSync(bomb, gzipSync(Buffer.concat([Buffer.from(`${small[0]}\n{"x":"`), Buffer.alloc(20 << 20, 0x61)])))
    const t = Date.now()
    const long = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, cli, "simulate", bomb], { encoding: "utf8" })
    expect(long.status).toBe(2)
    expect(long.stderr).toMatch(/bomb\.jsonl\.gz:2: \(line\): longer than 16777216 bytes/)
    expect(Date.now() - t).toBeLessThan(15_000)
    const peakKb = Number(long.stderr.trim().split("\n").at(-1))
    expect(peakKb).toBeLessThan(256 * 1024)
  })
})

describe("simulate shows what a provider said, never acts on it (issue 43)", () => {
  // A provider's error with an escape that would clear the screen, a CR/LF that would forge a line,
  // and a C1 CSI: the timeline shows each escaped, and --json keeps the same words with no control.
  const said = "refused\u001b[2J\r\nforged: recovered\u009b1m"
  const line = small.findIndex((l) => l.includes("connection refused (postgres://grafana")) + 1
  const file = withLine(line, small[line - 1]!.replace("connection refused", JSON.stringify(said).slice(1, -1)))

  it("the timeline escapes each control character; the words are all there", () => {
    const r = run("simulate", file)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain("refused\\x1b[2J\\x0d\\x0aforged: recovered\\x9b1m")
    for (const b of Buffer.from(r.out, "utf8")) expect(b < 0x20 ? b === 0x0a : b !== 0x7f).toBe(true)
    expect(/[\u0080-\u009f]/.test(r.out)).toBe(false)
  })

  it("--json escapes them as JSON does, so the same words are read back", () => {
    const r = run("simulate", file, "--json")
    expect(r.code, r.err).toBe(0)
    expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(r.out)).toBe(false)
    const texts = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.stringify(JSON.parse(l)))
    expect(texts.some((t) => t.includes(JSON.stringify(said).slice(1, -1)))).toBe(true)
  })
})
