// npm run bench: how fast a recorded day replays, against how fast its lines can merely be parsed,
// and whether simulate's memory stays flat as the log grows. Prints figures; asserts nothing.
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshReader, readLine, type ReaderState } from "@mesh-core/core/facts/log"
import { dayReplay, replayEnd, replayFact } from "@mesh-core/core/facts/replay"
import { defaultSettings } from "@mesh-core/core/provisioner/model"
import { emptySummary, summarize } from "@mesh-core/core/provisioner/summary"
import { drive } from "../../examples/drive.ts"
import { textOf } from "../../examples/generate.ts"
import { issue179Day } from "../../examples/issue-179.ts"

const top = join(import.meta.dirname, "../..")
const lines = textOf("identity-issue-179.facts.jsonl.gz").trimEnd().split("\n")
const rounds = 5
const best = (f: () => void): number => {
  let fastest = Number.POSITIVE_INFINITY
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    f()
    fastest = Math.min(fastest, performance.now() - t)
  }
  return fastest
}

const parseMs = best(() => {
  for (const l of lines) JSON.parse(l)
})

const replayMs = best(() => {
  let reader: ReaderState = freshReader
  const day = dayReplay()
  let summary = emptySummary
  for (const text of lines) {
    const r = readLine(reader, text, defaultSettings)
    if (!r.ok) throw new Error(r.bad.problem)
    reader = r.state
    if (r.fact === undefined) continue
    for (const d of replayFact(day, r.fact)) summary = summarize(summary, d)
  }
  for (const d of replayEnd(day)) summary = summarize(summary, d)
})

const facts = lines.length - 1
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000))
console.log(`the issue-179 day: ${facts.toLocaleString("en")} facts (${issue179Day.provider.resource}, 3 consumers, 17h50m)`)
console.log(`  JSON.parse alone:          ${rate(lines.length, parseMs).toLocaleString("en")} lines/s`)
console.log(`  replayed through the core: ${rate(facts, replayMs).toLocaleString("en")} facts/s (decode, check, step, summarize)`)
console.log(`  ratio: the replay runs at ${(parseMs / replayMs * 100).toFixed(1)}% of the bare JSON.parse rate (${(replayMs / parseMs).toFixed(2)}× its time)`)

// End to end, as a person runs it: start-up, both readings of the file, gunzip, printing.
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-bench-"))
const write = (name: string, days: number): string => {
  const day = { ...issue179Day, end: issue179Day.start + days * 86_400_000 - 5_000 }
  const file = join(scratch, name)
  writeFileSync(file, `${[...drive(day)].join("\n")}\n`)
  return file
}
const oneDay = write("one-day.jsonl", 1)
const fourDays = write("four-days.jsonl", 4)
const timeTool = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined
const simulate = (file: string) => {
  const cmd = [process.execPath, join(top, "shells/src/cli/main.ts"), "simulate", file]
  const t = performance.now()
  const r = timeTool
    ? spawnSync(timeTool, ["-f", "%M", ...cmd], { encoding: "utf8", maxBuffer: 256 << 20 })
    : spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8", maxBuffer: 256 << 20 })
  const ms = performance.now() - t
  if (r.status !== 0) throw new Error(r.stderr)
  const factsIn = Number(/summary: (\d+) facts/.exec(r.stdout)![1])
  const peakKb = timeTool ? Number(r.stderr.trim().split("\n").at(-1)) : undefined
  return { ms, factsIn, peakKb }
}
for (const [label, file] of [["one day", oneDay], ["four days", fourDays]] as const) {
  const r = simulate(file)
  const peak = r.peakKb === undefined ? "peak RSS not measured (no /usr/bin/time)" : `peak RSS ${(r.peakKb / 1024).toFixed(0)} MiB`
  console.log(`simulate, ${label}: ${r.factsIn.toLocaleString("en")} facts in ${(r.ms / 1000).toFixed(2)} s = ` +
    `${rate(r.factsIn, r.ms).toLocaleString("en")} facts/s end to end; ${peak}`)
}
