// npm run bench:push: composing and ordering a push for 1,000 to 100,000 machines, through the same
// core push uses (index, holder, brokerFirst, draftAll and sequenceEach, the delivery plan). Prints figures: the
// plain push, and beside it in the same run the push as `push` runs it during five open release
// plans (pushView: what the plans hold, each machine from its own index; issue 9).
import type { PlanRecord } from "@mesh-core/core/gate/plan/records"
import { draftAll, indexRecords, sequenceEach } from "@mesh-core/core/delivery/compose"
import { pushView } from "@mesh-core/core/delivery/push-view"
import { brokerFirst, deliveryActs, holderBehind } from "@mesh-core/core/delivery/order"
import type { MeshRecords } from "@mesh-core/core/mesh/records"
import { pushProgram } from "@mesh-core/core/delivery/push"
import { runPure } from "@mesh-core/core/program"
import { spawnSync } from "node:child_process"
import { PerformanceObserver } from "node:perf_hooks"

const meshOf = (machines: number): MeshRecords => {
  const nodes = Array.from({ length: machines }, (_, i) => `m-${i}`)
  const modules = [
    { name: "broker", build: "b1", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
    { name: "postgres", build: "p1", receives: ["postgres"], states: ["roles"] },
    ...Array.from({ length: 20 }, (_, i) => ({
      name: `app${i}`,
      build: `a${i}`,
      requires: ["postgres"],
      publishes: [`app${i}.>`],
      needsSeats: ["bus"],
    })),
  ]
  const assignments = [
    { module: "broker", node: "m-0" },
    { module: "postgres", node: "m-1" },
    ...nodes.flatMap((node, i) =>
      [0, 1, 2].map((k) => ({ module: `app${(i + k * 7) % 20}`, node, config: { replica: k } })),
    ),
  ]
  return { mesh: "bench", nodes, modules, assignments }
}

const pushOnce = (records: MeshRecords) => {
  const index = indexRecords(records)
  const { holder, behind } = holderBehind(index, records.nodes, undefined)
  const asked = brokerFirst(records.nodes, holder, behind)
  const sequences = new Map(asked.map((n, i) => [n, i + 1]))
  const { sending } = sequenceEach(draftAll(index, asked), asked, sequences)
  const delivery = deliveryActs(
    holder,
    sending.map((s) => s.node),
  )
  let acts = 0
  for (let step = delivery.next(); step.done !== true; step = delivery.next({ ok: true })) acts += 1
  return { sent: sending.length, acts }
}

/** Five modules each released to its first ten machines, the gate judging there: every other machine running one is held. */
const plansOf = (records: MeshRecords): ReadonlyArray<PlanRecord> =>
  Array.from({ length: 5 }, (_, i): PlanRecord => {
    const on = records.assignments.filter((a) => a.module === `app${i}`).map((a) => a.node)
    return {
      id: `app${i}-new`,
      module: `app${i}`,
      build: `a${i}`,
      commit: "c",
      previous: "b",
      previousBuild: `a${i}-old`,
      machines: on.slice(0, 10),
      rest: on.slice(10),
      sentAt: i,
      state: "open",
      note: "",
      tiers: [on.slice(0, 10)],
      tier: 0,
      sent: on.slice(0, 10),
    }
  })

const pushViewedOnce = (records: MeshRecords, plans: ReadonlyArray<PlanRecord>) => {
  const view = pushView(records, plans, records.nodes, { kind: "sweep" })
  const index = indexRecords(records)
  const { holder, behind } = holderBehind(index, records.nodes, undefined)
  const asked = brokerFirst(view.sendable, holder, behind)
  const sequences = new Map(asked.map((n, i) => [n, i + 1]))
  const { sending } = sequenceEach(draftAll(view.indexOf, asked), asked, sequences)
  const delivery = deliveryActs(
    holder,
    sending.map((s) => s.node),
  )
  let acts = 0
  for (let step = delivery.next(); step.done !== true; step = delivery.next({ ok: true })) acts += 1
  return { sent: sending.length, acts, held: view.holding.holds.length }
}

/**
 * The push as `push` runs it (core/src/delivery/push.ts, issue 25): the program over an in-memory
 * world answering each question (every sequence allotted, every act done), so the figure is the
 * program's own cost, its questions included, without the store or the bus.
 */
const pushProgramOnce = (records: MeshRecords, plans: ReadonlyArray<PlanRecord>) => {
  let sequence = 0
  const ran = runPure(pushProgram({ node: undefined, behind: false, wait: 0 }), (q) => {
    switch (q.q) {
      case "mesh-records":
        return records
      case "machines":
        return records.nodes
      case "plans-holding":
        return plans
      case "sent":
      case "reports":
        return []
      case "allot":
        return { sequence: ++sequence }
      case "message-limit":
        // As large as any declaration here: the figure is the push's own cost, measuring included.
        return Number.MAX_SAFE_INTEGER
      default:
        return { ok: true }
    }
  })
  const end = ran.result
  return { sent: "result" in end ? end.result.told.length : 0, asked: ran.exchanges.length }
}

/** One push in turn: its time, what of it the collector took, and the pages it touched first. */
interface Timed {
  readonly ms: number
  readonly collectingMs: number
  readonly pageFaults: number
}

const best = (f: () => void) => {
  f() // warm
  let ms = Number.POSITIVE_INFINITY
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    f()
    ms = Math.min(ms, performance.now() - t)
  }
  return ms
}

// `--alone N`: the push program at N machines in this process and nothing before it, the parent's
// fresh-process rows below.
const alone = process.argv.indexOf("--alone")
if (alone >= 0) {
  const records = meshOf(Number(process.argv[alone + 1]))
  console.log(best(() => void pushProgramOnce(records, [])).toFixed(1))
  process.exit(0)
}

// `--in-turn`: the push program at 10,000 then 100,000 machines, seven pairs, each push from a
// collected heap (the parent starts this with --expose-gc): a push taken right after a larger one
// would otherwise pay for collecting what that one left. Beside each push's time, what of it the
// collector took (its own `gc` entries) and how many pages the process touched for the first time
// (minor page faults): what grows faster than the mesh.
if (process.argv.includes("--in-turn")) {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error("--in-turn needs node --expose-gc")
  const collections: Array<{ readonly startTime: number; readonly duration: number }> = []
  new PerformanceObserver((list) => collections.push(...list.getEntries())).observe({ entryTypes: ["gc"] })
  const small = meshOf(10_000)
  const large = meshOf(100_000)
  const timed = (records: MeshRecords) => {
    collect()
    const faults = process.resourceUsage().minorPageFault
    const t = performance.now()
    pushProgramOnce(records, [])
    const ms = performance.now() - t
    return { t, ms, pageFaults: process.resourceUsage().minorPageFault - faults }
  }
  timed(small)
  timed(large)
  const taken = Array.from({ length: 7 }, () => ({ small: timed(small), large: timed(large) }))
  // The collector's entries are handed over once the pushes are done, so none waits between them.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const withCollecting = ({ t, ms, pageFaults }: { t: number; ms: number; pageFaults: number }): Timed => {
    const during = collections.filter((c) => c.startTime >= t && c.startTime < t + ms)
    return { ms, collectingMs: during.reduce((n, c) => n + c.duration, 0), pageFaults }
  }
  const pairs = taken.map((p) => ({ small: withCollecting(p.small), large: withCollecting(p.large) }))
  console.log(JSON.stringify(pairs))
  process.exit(0)
}

const rows: Array<{ machines: number; ms: number }> = []
for (const machines of [1_000, 2_000, 5_000, 10_000, 100_000]) {
  const records = meshOf(machines)
  pushOnce(records) // warm
  let best = Number.POSITIVE_INFINITY
  let result = { sent: 0, acts: 0 }
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    result = pushOnce(records)
    best = Math.min(best, performance.now() - t)
  }
  rows.push({ machines, ms: best })
  console.log(
    `${machines.toLocaleString("en").padStart(6)} machines, ${records.assignments.length.toLocaleString("en")} assignments: ` +
      `composed and ordered in ${best.toFixed(1)} ms = ${((best * 1000) / machines).toFixed(1)} µs a machine (${result.sent} sent, ${result.acts} acts)`,
  )
}
console.log(
  "during five open release plans, as push composes it (pushView), beside the plain push of the same mesh in this run:",
)
for (const machines of [1_000, 10_000]) {
  const records = meshOf(machines)
  const plans = plansOf(records)
  const plain = best(() => pushOnce(records))
  let result = { sent: 0, acts: 0, held: 0 }
  const viewed = best(() => void (result = pushViewedOnce(records, plans)))
  console.log(
    `${machines.toLocaleString("en").padStart(6)} machines: ${viewed.toFixed(1)} ms with ${result.held.toLocaleString("en")} holds ` +
      `(${result.sent} sent), plain ${plain.toFixed(1)} ms: ${(viewed / plain).toFixed(2)}× the plain push`,
  )
}
console.log(
  "the push program (pushProgram, each question answered in memory), beside the plain push of the same mesh in this run:",
)
const programRows: Array<{ machines: number; ms: number }> = []
for (const machines of [1_000, 10_000, 100_000]) {
  const records = meshOf(machines)
  const plans = plansOf(records)
  const plain = best(() => pushOnce(records))
  let result = { sent: 0, asked: 0 }
  const program = best(() => void (result = pushProgramOnce(records, [])))
  const during = best(() => void (result = pushProgramOnce(records, plans)))
  programRows.push({ machines, ms: program })
  console.log(
    `${machines.toLocaleString("en").padStart(6)} machines: ${program.toFixed(1)} ms (${result.asked.toLocaleString("en")} questions, ${result.sent} sent), ` +
      `${during.toFixed(1)} ms during five plans; plain ${plain.toFixed(1)} ms: ${(program / plain).toFixed(2)}× the plain push`,
  )
}
/** The time at each tenfold of machines against the one before: linear is 10×. */
const growth = (what: string, rs: ReadonlyArray<{ machines: number; ms: number }>) => {
  for (const r of rs) {
    const before = rs.find((x) => x.machines * 10 === r.machines)
    if (before !== undefined)
      console.log(
        `${what}: ${before.machines.toLocaleString("en")} → ${r.machines.toLocaleString("en")} machines, ${(r.ms / before.ms).toFixed(1)}× the time for 10× the machines (linear is 10×)`,
      )
  }
}
growth("composed and ordered", rows)
growth("the push program (compose, order, record)", programRows)

// The same figure with the two sizes taken in turn, seven pairs: on a machine shared with others the
// time of one size moves by a tenth from one run to the next, and a ratio of two best times taken
// seconds apart carries both moves; each pair here is taken under the same conditions. Then the same
// pairs with a young generation too small for either size (2 MB): with Node's own, a push of 10,000
// machines keeps what it must until its last act (some 19 MB) inside the young generation and is
// collected almost for nothing, where one of 100,000 has it copied twice and promoted; with 2 MB both
// pay the same for each byte, and the growth left is the push's own (issue 41).
const inTurn = (what: string, flags: ReadonlyArray<string>) => {
  const child = spawnSync(process.execPath, ["--expose-gc", ...flags, import.meta.filename, "--in-turn"], {
    encoding: "utf8",
  })
  if (child.status !== 0) throw new Error(`the push program in turn failed: ${child.stderr}`)
  const pairs: Array<{ small: Timed; large: Timed }> = JSON.parse(child.stdout)
  const ratio = (p: { small: Timed; large: Timed }) => p.large.ms / p.small.ms
  const sorted = pairs.toSorted((a, b) => ratio(a) - ratio(b))
  const median = sorted[Math.floor(sorted.length / 2)]!
  console.log(
    `the push program, 10,000 and 100,000 machines in turn, each from a collected heap${what}: ${sorted.map((p) => `${ratio(p).toFixed(1)}×`).join(" ")}; ` +
      `the median pair ${median.small.ms.toFixed(1)} ms and ${median.large.ms.toFixed(1)} ms, ${ratio(median).toFixed(1)}× the time for 10× the machines (linear is 10×)`,
  )
  const middle = (xs: ReadonlyArray<number>) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const of = (size: "small" | "large", what: "collectingMs" | "pageFaults") => middle(pairs.map((p) => p[size][what]))
  console.log(
    `  of which collecting (median): ${of("small", "collectingMs").toFixed(1)} ms and ${of("large", "collectingMs").toFixed(1)} ms, ` +
      `${(of("large", "collectingMs") / of("small", "collectingMs")).toFixed(1)}×; pages first touched: ${of("small", "pageFaults").toLocaleString("en")} and ` +
      `${of("large", "pageFaults").toLocaleString("en")}, ${(of("large", "pageFaults") / of("small", "pageFaults")).toFixed(1)}×`,
  )
}
inTurn("", [])
inTurn(", with a young generation of 2 MB", ["--max-semi-space-size=2"])

// The same figure with each size in a process of its own: in the rows measured one after another
// above, the row at 100,000 runs after some thirty pushes of other sizes and kinds, whose compiled code and allocation-site
// feedback it inherits (a single push of 200 machines during plans beforehand moves it by 3%).
const aloneRows = [10_000, 100_000].map((machines) => {
  const child = spawnSync(process.execPath, [import.meta.filename, "--alone", String(machines)], { encoding: "utf8" })
  if (child.status !== 0) throw new Error(`the push program alone at ${machines} machines failed: ${child.stderr}`)
  return { machines, ms: Number(child.stdout.trim()) }
})
console.log(
  `the push program, each size in a process of its own: ${aloneRows.map((r) => `${r.machines.toLocaleString("en")} machines ${r.ms.toFixed(1)} ms`).join(", ")}`,
)
growth("the push program, each size alone", aloneRows)
