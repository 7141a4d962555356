// npm run bench:push: composing and ordering a push for 1,000 to 10,000 machines, through the same
// core push uses (index, holder, brokerFirst, composeEach, the delivery plan). Prints figures.
import { composeEach, indexRecords } from "@mesh-core/core/delivery/compose"
import { afterAct, brokerFirst, holderBehind, startDelivery } from "@mesh-core/core/delivery/order"
import type { MeshRecords } from "@mesh-core/core/delivery/records"

const meshOf = (machines: number): MeshRecords => {
  const nodes = Array.from({ length: machines }, (_, i) => `m-${i}`)
  const modules = [
    { name: "broker", build: "b1", busUsers: true, claims: ["bus"], subscribes: ["mesh.>"] },
    { name: "postgres", build: "p1", receives: ["postgres"], states: ["roles"] },
    ...Array.from({ length: 20 }, (_, i) => ({ name: `app${i}`, build: `a${i}`, requires: ["postgres"], publishes: [`app${i}.>`], needsSeats: ["bus"] })),
  ]
  const assignments = [
    { module: "broker", node: "m-0" },
    { module: "postgres", node: "m-1" },
    ...nodes.flatMap((node, i) => [0, 1, 2].map((k) => ({ module: `app${(i + k * 7) % 20}`, node, config: { replica: k } }))),
  ]
  return { mesh: "bench", nodes, modules, assignments }
}

const pushOnce = (records: MeshRecords) => {
  const index = indexRecords(records)
  const { holder, behind } = holderBehind(index, records.nodes, undefined)
  const asked = brokerFirst(records.nodes, holder, behind)
  const sequences = new Map(asked.map((n, i) => [n, i + 1]))
  const { sending } = composeEach(index, asked, sequences)
  let step = startDelivery(holder, sending.map((s) => s.node))
  let acts = 0
  while (step.next !== undefined) {
    step = afterAct(step, { ok: true })
    acts += 1
  }
  return { sent: sending.length, acts }
}

const rows: Array<{ machines: number; ms: number }> = []
for (const machines of [1_000, 2_000, 5_000, 10_000]) {
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
  console.log(`${machines.toLocaleString("en").padStart(6)} machines, ${records.assignments.length.toLocaleString("en")} assignments: ` +
    `composed and ordered in ${best.toFixed(1)} ms = ${(best * 1000 / machines).toFixed(1)} µs a machine (${result.sent} sent, ${result.acts} acts)`)
}
const first = rows[0]!
const last = rows[rows.length - 1]!
console.log(`growth from 1,000 to 10,000 machines: ${(last.ms / first.ms).toFixed(1)}× the time for 10× the machines (linear is 10×)`)
