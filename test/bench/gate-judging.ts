// npm run bench:gate: one judging over 1,000, 5,000 and 10,000 machines with 50 modules each and
// 100,000 open conditions. The seed reads every open condition once per module judged; the core
// indexes them once per judging. The seed-style rescan is measured beside it in the same run, over
// a sample of the pairs (all of them would take hours), and its whole judging extrapolated.
import type { Condition, GateFacts, Reported, Statement } from "@mesh-core/core/gate/judging/facts"
import { judgeMoves, openGate, type Pair } from "@mesh-core/core/gate/judging/judge"

const modulesPerMachine = 50
const conditionCount = 100_000

const setup = (machines: number) => {
  const nodes = Array.from({ length: machines }, (_, i) => `m-${i}`)
  const modules = Array.from({ length: modulesPerMachine }, (_, i) => `mod${i}`)
  const pairs: Array<Pair> = nodes.flatMap((node) => modules.map((module) => ({ module, node })))
  const open: Array<Condition> = Array.from({ length: conditionCount }, (_, i) => {
    const machine = nodes[i % machines]!
    const module = modules[(i * 7) % modulesPerMachine]!
    // raised before the send, so every one is read and none decides the judging
    return {
      key: `module.${module}.${machine}.c${i}`,
      source: "D7",
      raised: 0,
      scope: "module",
      id: `${module}.${machine}`,
      machine,
      also: [],
      kind: "slow",
      summary: "slow",
    }
  })
  const statements = Object.fromEntries(
    nodes.map((n) => [
      n,
      {
        machine: n,
        at: 2_000,
        resources: modules.map((m) => ({
          resource: `${m}-main`,
          module: m,
          state: "healthy" as const,
        })),
      } satisfies Statement,
    ]),
  )
  const facts: GateFacts = {
    now: 600_000,
    reports: Object.fromEntries(nodes.map((n) => [n, { at: 1, current: true, outcome: "applied" } satisfies Reported])),
    engines: {},
    served: { ok: true, value: {} },
    open: { ok: true, value: open },
    rolledBack: {},
    holder: { ok: true, value: null },
    health: { ok: true, value: statements },
  }
  return { nodes, pairs, facts, open, statements }
}

for (const machines of [1_000, 5_000, 10_000]) {
  const { nodes, pairs, facts, open, statements } = setup(machines)
  const gate = openGate("mod0", nodes, "aaaaaaa", "bbbbbbb", 1_000)
  // Each judging reads its facts afresh, as a runner's does: nothing worked out for one is reused.
  const fresh = (): GateFacts => ({
    ...facts,
    open: { ok: true, value: open.map((c) => ({ ...c })) },
    health: { ok: true, value: Object.fromEntries(Object.entries(statements).map(([k, v]) => [k, { ...v }])) },
  })
  const rounds = 3
  let indexedMs = 0
  let verdictWorst = -1
  for (let i = 0; i < rounds; i++) {
    const f = fresh()
    const t0 = performance.now()
    verdictWorst = judgeMoves(gate, pairs, f, new Map()).worst
    indexedMs += (performance.now() - t0) / rounds
  }
  const sample = pairs.slice(0, 200)
  const t1 = performance.now()
  judgeMoves(gate, sample, facts, new Map(), undefined, true)
  const rescanSampleMs = performance.now() - t1
  const rescanMs = (rescanSampleMs / sample.length) * pairs.length
  console.log(
    `${machines.toLocaleString("en").padStart(6)} machines × ${modulesPerMachine} modules (${pairs.length.toLocaleString("en")} pairs), ` +
      `${conditionCount.toLocaleString("en")} open conditions: indexed ${indexedMs.toFixed(0)} ms a judging = ${(1000 / indexedMs).toFixed(2)} judgings/s` +
      ` (worst ${verdictWorst}); seed-style rescan ${(rescanMs / 1000).toFixed(0)} s a judging = ${(1000 / rescanMs).toFixed(5)} judgings/s ` +
      `(measured over ${sample.length} pairs), ${(rescanMs / indexedMs).toFixed(0)}× slower`,
  )
}
