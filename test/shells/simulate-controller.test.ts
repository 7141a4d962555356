// `mesh-controller simulate` on a controller's day, as a person runs it: the release day's verdicts
// and rollback in the words `serve` said, the same day under a stricter gate, --json, and bad input.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { recordDay } from "../../examples/controller-world.ts"
import { releaseDayScript } from "../../examples/release-day.ts"
import { cliPath } from "../support/cli.ts"

const top = join(import.meta.dirname, "../..")
const cli = cliPath
const run = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: top, encoding: "utf8", maxBuffer: 64 << 20 })
  return { code: r.status, out: r.stdout, err: r.stderr }
}
const day = "examples/release-day.facts.jsonl"
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-simulate-controller-"))
const shipped = readFileSync(join(top, day), "utf8").split("\n")
let made = 0
const withLine = (n: number, text: string): string => {
  const file = join(scratch, `bad-${n}-${++made}.jsonl`)
  const lines = [...shipped]
  lines[n - 1] = text
  writeFileSync(file, lines.join("\n"))
  return file
}
// Recorded inside each test, never while the file is collected: a mutation run counts per test what each covers.
const live = () => recordDay(releaseDayScript)

describe("simulate on a controller's day", () => {
  it("the release day: the crash-looping build's VERDICT and ROLLBACK, the healthy build's VERDICT, in the words serve said, and nothing inferred", () => {
    const r = run("simulate", day)
    expect(r.code, r.err).toBe(0)
    const lines = r.out.split("\n")
    expect(lines.filter((l) => l.includes("  VERDICT  "))).toEqual([
      expect.stringMatching(
        /^2026-11-20T10:13:20Z {2}VERDICT {4}\[gate\] letta-letta-204: letta: gate on hq-3: FAILED, a71c3d0 → 5e1f0c2, after 10m20s: not healthy within 10m0s of its apply: raised since it was sent: module\.letta\.hq-3\.unhealthy/,
      ),
      "2026-11-20T10:18:40Z  VERDICT    [gate] letta-letta-205: letta: gate on hq-3: passed, a71c3d0 → 9c4e1b7, after 2m40s: healthy 3 times over 2m40s",
    ])
    expect(lines.filter((l) => l.includes("  ROLLBACK  "))).toEqual([
      expect.stringMatching(
        /^2026-11-20T10:13:20Z {2}ROLLBACK {3}\[gate\] letta's build 5e1f0c2 failed its gate on hq-3 and was put back to a71c3d0: /,
      ),
    ])
    expect(lines.filter((l) => l.includes("  SEND  "))).toEqual([
      "2026-11-20T10:13:20Z  SEND       the rollback of letta to hq-3",
      "2026-11-20T10:18:40Z  SEND       the rest of letta to hq-4",
    ])
    expect(r.out).toContain("2026-11-20T10:05:10Z  CONDITION  [controller] raised module.letta.hq-3.unhealthy")
    expect(r.out).toContain("2026-11-20T10:14:10Z  condition  [controller] cleared module.letta.hq-3.unhealthy")
    expect(r.out).toContain(
      "2026-11-20T10:02:05Z  standings  identity on hq-2: letta on hq-3 failing (credentials-rejected",
    )
    expect(r.out).toContain("2026-11-20T10:08:00Z  started    serve started again on this recording")
    // Every line the live controller said, as it said it, in order: a live journal and its replay compare line for line.
    expect(lines.filter((l) => l.slice(33).startsWith("[")).map((l) => l.slice(33))).toEqual(
      live().programs.flatMap((p) => p.said),
    )
    expect(r.out).toContain("verdicts: 1 passed, 1 failed; rollbacks: 1 rolled-back; sends: 1 rest, 1 rollback")
    expect(r.out).toContain("(0 inferred, 0 differed, 0 unasked)")
    expect(r.out).toMatch(
      /summary: 443 facts, \d+ programs run, 2026-11-20T10:00:00Z to 2026-11-20T10:24:00Z \(24m0s\); 1 restart/,
    )
  }, 120_000)

  it("--set passes=5: the failed build fails the same, the healthy one passes 80s later (two more passes 40s apart), its rest sent then, and the summary says what was inferred", () => {
    const base = run("simulate", day)
    const r = run("simulate", day, "--set", "passes=5")
    expect(r.code, r.err).toBe(0)
    const verdicts = r.out.split("\n").filter((l) => l.includes("  VERDICT  "))
    expect(verdicts[0]!.replace("gate on hq-3", "")).toBe(
      base.out
        .split("\n")
        .find((l) => l.includes("  VERDICT  "))!
        .replace("gate on hq-3", ""),
    )
    expect(verdicts[1]).toBe(
      "2026-11-20T10:20:00Z  VERDICT    [gate] letta-letta-205: letta: gate on hq-3: passed, a71c3d0 → 9c4e1b7, after 4m0s: healthy 5 times over 4m0s",
    )
    expect(r.out).toContain(
      "2026-11-20T10:18:40Z  judging    [gate] letta-letta-205: letta: gate on hq-3: judging, a71c3d0 → 9c4e1b7 (3 of 5 passes)",
    )
    expect(r.out).toContain("2026-11-20T10:20:00Z  SEND       the rest of letta to hq-4 (inferred)")
    expect(r.out).not.toContain("10:18:40Z  SEND")
    expect(r.out).toContain(
      "what-if: 14 answers were not in the recording and were inferred (8 of them to acts); 1 act differs from the one recorded; 6 recorded answers",
    )
    expect(r.out).toContain("settings at the end: the gate: settle 2m0s, bound 10m0s, 5 passes 40s apart")
  }, 120_000)

  it("--json: every decision a JSON line, every act with its question and answer, the same acts serve asked for, then the summary", () => {
    const r = run("simulate", day, "--json")
    expect(r.code, r.err).toBe(0)
    const rows = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const summary = rows.at(-1)!["summary"] as Record<string, unknown>
    expect(summary).toMatchObject({
      facts: 443,
      starts: 1,
      inferred: 0,
      differed: 0,
      unasked: 0,
      verdicts: { passed: 1, failed: 1 },
    })
    const acts = rows.filter((d) => d["kind"] === "act")
    expect(acts.map((d) => d["act"])).toEqual(live().programs.flatMap((p) => p.acts))
    expect(
      acts.every((d) => d["answer"] !== undefined && d["recorded"] === true && typeof d["input"] === "string"),
    ).toBe(true)
    expect(rows.filter((d) => d["kind"] === "said").map((d) => d["line"])).toEqual(
      live().programs.flatMap((p) => p.said),
    )
  }, 120_000)

  it("the crash loop alone: the unhealthy condition on the second unhealthy statement, one rollback send; --set bound=4m fails it sooner", () => {
    const r = run("simulate", "examples/gate-crash-loop.facts.jsonl")
    expect(r.code, r.err).toBe(0)
    const lines = r.out.split("\n")
    expect(lines.filter((l) => l.includes("CONDITION  [controller] raised module.letta.hq-3.unhealthy"))).toEqual([
      expect.stringMatching(/^2026-11-20T10:01:10Z/),
    ])
    expect(lines.filter((l) => l.includes("SEND"))).toEqual([
      "2026-11-20T10:10:40Z  SEND       the rollback of letta to hq-3",
    ])
    const event = JSON.parse(
      lines.find((l) => l.includes("  event      rolled-back "))!.split("  event      rolled-back ")[1]!,
    )
    expect(event).toMatchObject({
      event: "rolled-back",
      module: "letta",
      machines: ["hq-3"],
      from: "5e1f0c2a9b",
      to: "a71c3d09e4",
      rollback: "rolled-back",
    })
    const sooner = run("simulate", "examples/gate-crash-loop.facts.jsonl", "--set", "bound=4m")
    expect(sooner.out).toMatch(
      /10:04:40Z {2}VERDICT {4}\[gate\] letta-letta-204: letta: gate on hq-3: FAILED, a71c3d0 → 5e1f0c2, after 4m39s: not healthy within 4m0s/,
    )
    expect(sooner.out).toContain("10:04:40Z  SEND       the rollback of letta to hq-3 (inferred)")
  }, 120_000)

  it("bad input stops it before any result: FILE:LINE: field: problem, exit code 2", () => {
    const cases: ReadonlyArray<[string, string]> = [
      [withLine(5, `{"at":"2026-11-20T10:00:40.000Z","fact":"tick","extra":`), ":5: (line): not JSON"],
      [
        withLine(1, `{"format":"mesh-core.facts","version":1,"area":"controller","settings":{"gate":{"settle":"0s"}}}`),
        ":1: settings.gate.settle: settle must be longer than 0s",
      ],
      [
        withLine(3, `{"at":"2026-11-20T10:00:00.000Z","fact":"answer","q":{"q":"plans-in-flight"},"a":{"ok":"yes"}}`),
        ":3: a: Expected",
      ],
      [
        withLine(3, `{"at":"2026-11-20T10:00:00.000Z","fact":"answer","q":{"q":"guess"},"a":{}}`),
        `:3: q.q: no such question: "guess"`,
      ],
      [
        withLine(
          2,
          `{"at":"2026-11-20T10:00:00.000Z","fact":"answer","q":{"q":"plans-in-flight"},"a":{"ok":true,"value":[]}}`,
        ),
        ":2: fact: an answer with no program before it",
      ],
      [
        withLine(200, `{"at":"2026-11-20T09:00:00.000Z","fact":"tick"}`),
        ":200: at: 2026-11-20T09:00:00.000Z is before the previous fact's time",
      ],
    ]
    for (const [file, said] of cases) {
      const r = run("simulate", file)
      expect(r.code, file).toBe(2)
      expect(r.err).toContain(`${file}${said}`)
      expect(r.out).toBe("")
    }
  }, 240_000)

  it("a setting that is not the gate's, or breaks its rule, is refused the same way", () => {
    expect(run("simulate", day, "--set", "failingAfter=2m")).toMatchObject({
      code: 2,
      out: "",
      err: expect.stringContaining('no gate setting "failingAfter"'),
    })
    expect(run("simulate", day, "--set", "passes=0")).toMatchObject({
      code: 2,
      out: "",
      err: expect.stringContaining("--set passes=0: passes is a whole number from 1 to 999999"),
    })
  }, 120_000)
})
