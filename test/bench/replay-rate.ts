// npm run bench: how fast `simulate` replays a provider's log and a controller's log end to end,
// beside how fast the same file can merely be gunzipped and JSON.parse'd, measured in the same run;
// and whether its memory stays flat from one day to seven (peak RSS of the simulate process, as the
// kernel counts it: process.resourceUsage().maxRSS read in the child as it exits). Logs of 100
// consumers are generated into a temp dir (never committed, removed after). Prints figures; asserts
// nothing unless asked to hold a figure (`--hold 40`). `npm run bench -- 1` runs the one-day logs only,
// `npm run bench -- controller 7` one area. MESH_BENCH_LOGS=DIR keeps the generated
// logs in DIR and uses those already there; MESH_BENCH_CLI=FILE measures another checkout's CLI (its
// shells/src/cli/main.ts), for a before/after.
import { spawnSync } from "node:child_process"
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { once } from "node:events"
import { pathToFileURL } from "node:url"
import { createGunzip, createGzip } from "node:zlib"
import type { AnswerFact } from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import { defaultSettings } from "@mesh-core/core/provisioner/model"
import { type Day, documentOf, drive, ok } from "../../examples/drive.ts"
import { controllerDays } from "./controller-log.ts"

const top = join(import.meta.dirname, "../..")
const consumers = Array.from({ length: 100 }, (_, i) => ({ as: `consumer-${i}`, node: `hq-${i % 5}` }))
const document = documentOf(
  "postgres",
  consumers.map((c) => ({
    as: c.as,
    secret: `/run/secrets/${c.as}`,
    node: c.node,
    at: c.node,
    values: { name: c.as },
  })),
)
const start = Date.parse("2026-10-05T00:00:00Z")

// Every tenth consumer fails from 06:00 to 09:00 each day, so there is something to announce.
const answer = (request: Request, at: number): AnswerFact => {
  const hour = ((at - start) % 86_400_000) / 3_600_000
  const index = Number(request.as.slice("consumer-".length))
  if (request.q === "create" && index % 10 === 0 && hour >= 6 && hour < 9) {
    return { fact: "create", at, as: request.as, outcome: "error", error: "connection refused", class: undefined }
  }
  if (request.q === "holds" && index % 10 === 0 && hour >= 6 && hour < 9) {
    return { fact: "holds", at, as: request.as, outcome: "not-held" }
  }
  return ok(request, at, `pw-${request.as}`)
}

const dayOf = (days: number): Day => ({
  provider: { resource: "postgres", receives: "/run/mesh/contributions/postgres.json", node: "hq-1" },
  settings: defaultSettings,
  start,
  end: start + days * 86_400_000 - 5_000,
  callMs: 1,
  world: { document: () => ({ text: document }), answer },
})

const kept = process.env["MESH_BENCH_LOGS"]
if (kept !== undefined) mkdirSync(kept, { recursive: true })
const scratch = kept ?? mkdtempSync(join(tmpdir(), "mesh-core-bench-"))
const write = async (area: "provider" | "controller", days: number): Promise<string> => {
  const file = join(scratch, area === "provider" ? `${days}-days.jsonl.gz` : `controller-${days}-days.jsonl.gz`)
  if (kept !== undefined && existsSync(file)) return file
  const gz = createGzip({ level: 6 })
  const out = gz.pipe(createWriteStream(file))
  let batch: Array<string> = []
  for (const line of area === "provider" ? drive(dayOf(days)) : controllerDays(start, days)) {
    batch.push(line)
    if (batch.length >= 10_000) {
      if (!gz.write(`${batch.join("\n")}\n`)) await once(gz, "drain")
      batch = []
    }
  }
  gz.end(`${batch.join("\n")}\n`)
  await once(out, "finish")
  return file
}

/**
 * The anchor: gunzip the file and JSON.parse every line, in this process, and nothing else. In
 * pieces, as a week's log (3.5 GB of text) is longer than a string may be.
 */
const anchor = async (file: string) => {
  const t = performance.now()
  const cpu0 = process.cpuUsage()
  let lines = 0
  let partial = ""
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }).pipe(
    createGunzip({ chunkSize: 1 << 20 }),
  ) as AsyncIterable<Buffer>) {
    const text = partial + chunk.toString("utf8")
    let from = 0
    for (;;) {
      const end = text.indexOf("\n", from)
      if (end < 0) break
      JSON.parse(text.slice(from, end))
      lines += 1
      from = end + 1
    }
    partial = text.slice(from)
  }
  const cpu = process.cpuUsage(cpu0)
  return { lines, ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000 }
}

const cli = process.env["MESH_BENCH_CLI"] ?? join(top, "shells/src/cli/main.ts")
const checkout = join(dirname(cli), "../../..")
// The child says its own peak RSS and CPU time as it exits, on standard error's last line. CPU time
// beside wall time: on a machine shared with other work the wall-clock ratio moves with the load
// (the anchor and simulate run one after the other), the CPU-time ratio much less.
const sayPeak = join(scratch, "say-peak.mjs")
writeFileSync(
  sayPeak,
  `process.on("exit",()=>{const u=process.resourceUsage();` +
    `process.stderr.write("\\npeak-rss-kb "+u.maxRSS+" cpu-us "+(u.userCPUTime+u.systemCPUTime)+"\\n")})\n`,
)
// Simulate is launched as the measured checkout launches it (issue 11: the young generation's size
// and the compile cache are set there): its ./mesh-controller, or before there was one the node
// flags and entry of its `npm run simulate`.
const launcher = join(checkout, "mesh-controller")
const launched = (() => {
  if (existsSync(launcher)) return { command: launcher, args: ["simulate"] }
  const script: unknown = JSON.parse(readFileSync(join(checkout, "package.json"), "utf8")).scripts?.simulate
  const words = typeof script === "string" ? script.trim().split(/\s+/) : []
  if (words[0] !== "node" || words.at(-1) !== "simulate") return { command: process.execPath, args: [cli, "simulate"] }
  return { command: process.execPath, args: [...words.slice(1, -2), join(checkout, words.at(-2)!), "simulate"] }
})()
const simulate = (file: string) => {
  const t = performance.now()
  const r = spawnSync(launched.command, [...launched.args, file], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NODE_OPTIONS: `--import=${pathToFileURL(sayPeak).href}` },
  })
  const ms = performance.now() - t
  if (r.status !== 0) throw new Error(r.stderr)
  const said = /peak-rss-kb (\d+) cpu-us (\d+)\s*$/.exec(r.stderr)
  return { ms, peakKb: Number(said?.[1]), cpuMs: Number(said?.[2]) / 1000 }
}

const rate = (n: number, ms: number) => Math.round(n / (ms / 1000))
const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`
const option = (name: string): number | undefined => {
  const i = process.argv.indexOf(name)
  return i < 0 ? undefined : Number(process.argv[i + 1])
}
// `--hold R` makes the figures a check (issue 45: a regression from 48% to 35% was printed and passed
// unremarked): exit 1 when a log's replay falls under R% of the anchor by CPU, or peaks over 128 MiB.
const holdRatio = option("--hold")
const held = holdRatio === undefined ? undefined : { ratio: holdRatio, peakMib: option("--peak") ?? 128 }
const rounds = option("--rounds") ?? (held === undefined ? 1 : 3)
const below: Array<string> = []
const median = (xs: ReadonlyArray<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const optionValues = new Set(
  ["--hold", "--peak", "--rounds"].flatMap((n) => {
    const i = process.argv.indexOf(n)
    return i < 0 ? [] : [i + 1]
  }),
)
const daysList = process.argv
  .slice(2)
  .filter((_, i) => !optionValues.has(i + 2))
  .map(Number)
  .filter((n) => n > 0)
// What the CLI takes before it reads a line: a log of a few lines, end to end.
// The first start after a change to the sources builds simulate's bundle and Node's compile cache;
// it is said apart, and every figure after it is of a start that finds them.
const firstStart = simulate(join(top, "examples/small.facts.jsonl"))
const floor = simulate(join(top, "examples/small.facts.jsonl"))
console.log(
  `${[launched.command, ...launched.args].join(" ")}: a 25-minute log (examples/small.facts.jsonl) takes ${(floor.ms / 1000).toFixed(2)} s, ` +
    `peak RSS ${mib(floor.peakKb)} (the first start ${(firstStart.ms / 1000).toFixed(2)} s, ${mib(firstStart.peakKb)})`,
)
const areasAsked = (["provider", "controller", "readme"] as const).filter((a) => process.argv.includes(a))
const areas: ReadonlyArray<"provider" | "controller" | "readme"> =
  areasAsked.length > 0 ? areasAsked : ["provider", "controller", "readme"]
for (const area of areas.filter((a): a is "provider" | "controller" => a !== "readme")) {
  for (const days of daysList.length > 0 ? daysList : [1, 7]) {
    const file = await write(area, days)
    // Rounds that alternate the anchor and the replay, each figure the median of its rounds (the
    // CPU-time ratio of one pair moved by ten points on a machine shared with other work, issue 45).
    const as: Array<Awaited<ReturnType<typeof anchor>>> = []
    const ss: Array<ReturnType<typeof simulate>> = []
    for (let round = 0; round < rounds; round += 1) {
      as.push(await anchor(file))
      ss.push(simulate(file))
    }
    const a = { lines: as[0]!.lines, ms: median(as.map((x) => x.ms)), cpuMs: median(as.map((x) => x.cpuMs)) }
    const s = {
      ms: median(ss.map((x) => x.ms)),
      cpuMs: median(ss.map((x) => x.cpuMs)),
      peakKb: Math.max(...ss.map((x) => x.peakKb)),
    }
    const cpuRatio = (a.cpuMs / s.cpuMs) * 100
    if (held !== undefined && cpuRatio < held.ratio) below.push(`${area}'s ${days}-day log at ${cpuRatio.toFixed(1)}%`)
    if (held !== undefined && s.peakKb > held.peakMib * 1024)
      below.push(`${area}'s ${days}-day log peaked at ${mib(s.peakKb)}`)
    console.log(
      `${area}'s log, ${days} day(s), 100 consumers: ${a.lines.toLocaleString("en")} lines, ${(statSync(file).size / 1e6).toFixed(1)} MB gzipped`,
    )
    console.log(`  gunzip + JSON.parse:  ${rate(a.lines, a.ms).toLocaleString("en")} lines/s`)
    console.log(
      `  simulate end to end:  ${rate(a.lines, s.ms).toLocaleString("en")} lines/s; peak RSS ${mib(s.peakKb)}`,
    )
    console.log(
      `  ratio: simulate runs at ${((a.ms / s.ms) * 100).toFixed(1)}% of the anchor's rate ` +
        `(CPU time: anchor ${(a.cpuMs / 1000).toFixed(1)} s, simulate ${(s.cpuMs / 1000).toFixed(1)} s, ${cpuRatio.toFixed(1)}%)` +
        (rounds > 1 ? `, medians of ${rounds} rounds` : ""),
    )
  }
}
if (held !== undefined) {
  if (below.length === 0)
    console.log(`held: every log at ${held.ratio}% of the anchor by CPU or more, peak RSS at most ${held.peakMib} MiB`)
  else {
    console.log(`NOT HELD (${held.ratio}% by CPU, ${held.peakMib} MiB): ${below.join("; ")}`)
    process.exitCode = 1
  }
}

// The README's replay, every process whole, as a newcomer starts it (issue 30): the shipped
// issue-179 day through ./mesh-controller and through `npm run simulate`, beside the anchor as a
// process of its own (test/bench/anchor.js), in rounds that alternate the three, each figure the
// median of its rounds. One start of each first, so that every round finds the bundle built.
if (areas.includes("readme")) {
  const day = join(top, "examples/identity-issue-179.facts.jsonl.gz")
  const wall = (command: string, args: ReadonlyArray<string>) => {
    const t = performance.now()
    const r = spawnSync(command, args, { cwd: top, stdio: "ignore" })
    if (r.status !== 0) throw new Error(`${command} ${args.join(" ")}: exit ${r.status}`)
    return performance.now() - t
  }
  const ways = {
    anchor: () => wall(process.execPath, [join(top, "test/bench/anchor.js"), day]),
    launcher: () => wall(join(top, "mesh-controller"), ["simulate", day]),
    npm: () => wall("npm", ["run", "-s", "simulate", "--", day]),
  }
  const rounds = 9
  const times: Record<keyof typeof ways, Array<number>> = { anchor: [], launcher: [], npm: [] }
  for (const way of Object.values(ways)) way()
  for (let i = 0; i < rounds; i++) {
    for (const [name, way] of Object.entries(ways) as Array<[keyof typeof ways, () => number]>) times[name].push(way())
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const s = (ms: number) => `${(ms / 1000).toFixed(3)} s`
  const [a, l, n] = [median(times.anchor), median(times.launcher), median(times.npm)]
  console.log(
    `the README's replay, examples/identity-issue-179.facts.jsonl.gz, whole processes, median of ${rounds} rounds:`,
  )
  console.log(`  anchor (node test/bench/anchor.js: gunzip + JSON.parse):  ${s(a)}`)
  console.log(`  ./mesh-controller simulate:  ${s(l)}, ${((a / l) * 100).toFixed(1)}% of the anchor's rate`)
  console.log(`  npm run simulate:            ${s(n)}, ${((a / n) * 100).toFixed(1)}% (npm's own start ${s(n - l)})`)
}
if (kept === undefined) rmSync(scratch, { recursive: true, force: true })
