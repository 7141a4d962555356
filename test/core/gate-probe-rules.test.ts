// The gate's probe (seed 003's probeGates): which verdicts and witness verdicts become conditions,
// in what order, and which conditions a run raises again or clears — stated from the seed's rule,
// each key and sentence written out by hand.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { WitnessVerdict } from "@mesh-core/core/gate/judging/facts"
import { keepProbe, probeGates, type Verdict } from "@mesh-core/core/gate/judging/probe"

const failed: Verdict = {
  module: "letta",
  component: "",
  machines: ["hq-1"],
  verdict: "failed",
  rollback: "rolled-back",
  why: "hq-1 refused what it was sent",
  commit: "5e1f0c2a9b",
  previous: "a71c3d09e4",
}
const witness: WitnessVerdict = {
  component: "engine",
  outcome: "rolled-back",
  from: "b1b2b3b4b5",
  to: "c1c2c3c4c5",
  why: "it exited",
  at: 0,
}

describe("what the probe finds", () => {
  it("a failed build's newest verdict is one condition; a passed one, or one that changed nothing, is none", () => {
    expect(probeGates([failed], new Map()).map((o) => [o.key, o.summary])).toEqual([
      [
        "build.letta.hq-1.rolled-back",
        "letta's build 5e1f0c2 failed its gate on hq-1 and was put back to a71c3d0: hq-1 refused what it was sent",
      ],
    ])
    expect(probeGates([{ ...failed, verdict: "passed" }], new Map())).toEqual([])
    expect(probeGates([{ ...failed, rollback: "unchanged" }], new Map())).toEqual([])
  })

  it("a build not put back names why it was not; one put back says no such why", () => {
    expect(
      probeGates([{ ...failed, rollback: "not-rolled-back", why: "hq-1 refused what it was sent" }], new Map()).map(
        (o) => o.summary,
      ),
    ).toEqual([
      "letta's build 5e1f0c2 failed its gate on hq-1 and was NOT put back: hq-1 refused what it was sent — hq-1 refused what it was sent",
    ])
    expect(probeGates([{ ...failed, rollback: "rollback-failed" }], new Map()).map((o) => o.summary)).toEqual([
      "letta's build 5e1f0c2 failed its gate on hq-1 and was NOT put back: hq-1 refused what it was sent — (none)",
    ])
  })

  it("each witness verdict of each machine is a condition of its own", () => {
    const found = probeGates(
      [],
      new Map([
        ["hq-2", [witness, { ...witness, component: "tools" }]],
        ["hq-1", [witness]],
      ]),
    )
    expect(found.map((o) => o.key)).toEqual([
      "core.engine.hq-1.rolled-back",
      "core.engine.hq-2.rolled-back",
      "core.tools.hq-2.rolled-back",
    ])
    expect(found[0]!.summary).toBe(
      "the witness on hq-1 judged the engine b1b2b3b not healthy and put back c1c2c3c at 1970-01-01T00:00:00Z: it exited",
    )
  })

  it("the conditions come out in the order of their keys, one per key, whatever the order they were found in", () => {
    const machine = fc.constantFrom("hq-1", "hq-2", "hq-3", "hq-10")
    const verdicts = fc.array(fc.record({ module: fc.constantFrom("letta", "grafana", "pg"), machine }), {
      maxLength: 6,
    })
    const witnesses = fc.array(fc.record({ machine, component: fc.constantFrom("engine", "tools") }), { maxLength: 6 })
    fc.assert(
      fc.property(verdicts, witnesses, (vs, ws) => {
        const byMachine = new Map<string, Array<WitnessVerdict>>()
        for (const w of ws)
          byMachine.set(w.machine, [...(byMachine.get(w.machine) ?? []), { ...witness, component: w.component }])
        const found = probeGates(
          vs.map((v) => ({ ...failed, module: v.module, machines: [v.machine] })),
          byMachine,
        ).map((o) => o.key)
        const expected = new Set([
          ...vs.map((v) => `build.${v.module}.${v.machine}.rolled-back`),
          ...ws.map((w) => `core.${w.component}.${w.machine}.rolled-back`),
        ])
        // Strictly ascending: sorted, and no key twice.
        for (let i = 1; i < found.length; i++) expect(found[i - 1]! < found[i]!).toBe(true)
        expect(new Set(found)).toEqual(expected)
      }),
    )
  })
})

describe("what a run of the probe writes", () => {
  const [o] = probeGates([failed], new Map())
  const open = {
    key: o!.key,
    source: "DG",
    raised: 1,
    scope: o!.scope,
    id: o!.id,
    machine: "hq-1",
    also: [],
    kind: o!.kind,
    summary: o!.summary,
  }

  it("a condition open as found is left; one said differently, or of another severity, is raised again; one of no severity said alike is left", () => {
    expect(keepProbe([o!], [open], true)).toEqual({ raise: [], clear: [] })
    expect(keepProbe([o!], [{ ...open, severity: o!.severity }], true)).toEqual({ raise: [], clear: [] })
    expect(keepProbe([o!], [{ ...open, severity: "urgent" }], true).raise).toEqual([o])
    expect(keepProbe([o!], [{ ...open, summary: "said otherwise" }], true).raise).toEqual([o])
    expect(keepProbe([o!], [], true).raise).toEqual([o])
  })

  it("only the probe's own conditions count: another source's is neither taken as raised nor cleared", () => {
    expect(keepProbe([o!], [{ ...open, source: "witness" }], true)).toEqual({ raise: [o], clear: [] })
    expect(keepProbe([], [{ ...open, source: "witness" }], true)).toEqual({ raise: [], clear: [] })
  })

  it("its own conditions not found are cleared, only when everything could be read", () => {
    expect(keepProbe([], [open], true)).toEqual({ raise: [], clear: [open.key] })
    expect(keepProbe([], [open], false)).toEqual({ raise: [], clear: [] })
  })
})
