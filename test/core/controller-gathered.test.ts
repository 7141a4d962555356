// What the gate's facts are made of, decided in the core (issue 8): which reports are current, which
// $SRV.INFO answers count, and what a follower sets aside rather than keeps.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { reportedFacts, servedOf } from "@mesh-core/core/gate/judging/gathered"
import { keepWords } from "@mesh-core/core/standings/followers"
import { keepReport } from "@mesh-core/core/delivery/reports"
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { type Program, runPure } from "@mesh-core/core/program"
import type { ControllerQuestions, Question } from "@mesh-core/core/controller/catalogue"

const node = fc.constantFrom("hq-1", "hq-2", "hq-3", "hq-4")
const digest = fc.constantFrom("d1", "d2", "d3")

describe("a report counts as current only when it is of the declaration last sent", () => {
  it("current exactly when a send to the same machine carried the same digest; one entry per reporting machine", () => {
    const report = fc.record({ node, digest, at: fc.nat(), outcome: fc.constantFrom("applied", "failed", "refused") })
    fc.assert(
      fc.property(
        fc.uniqueArray(report, { selector: (r) => r.node }),
        fc.uniqueArray(fc.record({ node, digest }), { selector: (s) => s.node }),
        (reports, sent) => {
          const facts = reportedFacts(reports, sent)
          expect(Object.keys(facts).sort()).toEqual(reports.map((r) => r.node).sort())
          for (const r of reports) {
            const wasSent = sent.some((s) => s.node === r.node && s.digest === r.digest)
            expect(facts[r.node]).toEqual({ at: r.at, current: wasSent, outcome: r.outcome })
          }
        },
      ),
    )
  })
})

describe("who serves what: only this mesh's node tools, from answers that are info responses", () => {
  const info = fc.record({
    mesh: fc.constantFrom("m", "other", ""),
    node,
    tools: fc.subarray(["letta", "grafana", "pg"]),
    type: fc.constantFrom("io.nats.micro.v1.info_response", "io.nats.micro.v1.stats_response"),
  })
  const body = (i: { mesh: string; node: string; tools: Array<string>; type: string }) =>
    JSON.stringify({
      type: i.type,
      name: "node-tools",
      id: `node-tools-${i.node}`,
      version: "0.1.0",
      metadata: { mesh: i.mesh, node: i.node },
      endpoints: i.tools.map((module) => ({
        name: `${module}-tools`,
        subject: `t.${i.node}.${module}`,
        metadata: { kind: "tool", module, node: i.node },
      })),
    })
  it("a machine counts when an info response of this mesh names its node tools, with the union of the tools they serve; junk never counts and never throws", () => {
    fc.assert(
      fc.property(fc.array(info), fc.array(fc.string()), (infos, junk) => {
        const served = servedOf([...infos.map(body), ...junk], "m")
        const counted = infos.filter((i) => i.mesh === "m" && i.type === "io.nats.micro.v1.info_response")
        expect(Object.keys(served).sort()).toEqual([...new Set(counted.map((i) => i.node))].sort())
        for (const n of Object.keys(served)) {
          expect(served[n]!.runtime).toBe(true)
          expect([...served[n]!.tools].sort()).toEqual(
            [...new Set(counted.filter((i) => i.node === n).flatMap((i) => i.tools))].sort(),
          )
        }
      }),
    )
  })
})

describe("what the node tools serve, case by case", () => {
  it("only a service named node-tools says the machine's runtime answers; only an endpoint of kind tool naming a module is a tool", () => {
    const info = (name: string, endpoints: ReadonlyArray<Record<string, string>>) =>
      JSON.stringify({
        type: "io.nats.micro.v1.info_response",
        name,
        id: "ID1",
        version: "1",
        metadata: { mesh: "m", node: "hq-1" },
        endpoints: endpoints.map((metadata, i) => ({ name: `e${i}`, subject: `s${i}`, metadata })),
      })
    expect(servedOf([info("letta-tools", [{ kind: "tool", module: "letta", node: "hq-1" }])], "m")).toEqual({
      "hq-1": { runtime: false, tools: ["letta"] },
    })
    expect(
      servedOf(
        [info("letta-tools", [{ kind: "other", module: "letta" }, { kind: "tool" }, { kind: "tool", module: "" }])],
        "m",
      ),
    ).toEqual({})
    expect(servedOf([info("node-tools", [{ kind: "tool", module: "letta", node: "hq-2" }])], "m")).toEqual({
      "hq-1": { runtime: true, tools: [] },
      "hq-2": { runtime: false, tools: ["letta"] },
    })
  })
})

describe("followers set aside what the store could not keep, and keep the rest", () => {
  const asked = (program: Program<ControllerQuestions, unknown>) => {
    const questions: Array<Question> = []
    runPure(program, (q) => {
      questions.push(q)
      return q.q === "set-aside"
        ? { fresh: q.letters.map((l) => l.streamSequence) }
        : q.q === "kept-report" || q.q === "kept-statement"
          ? null
          : { ok: true }
    })
    return questions
  }
  const heard = (body: string, seq = 7) => ({
    subject: "mesh.health.hq-3",
    event: "mesh.health.hq-3",
    body,
    seq,
    stream: "HEALTH",
  })

  it("a statement naming a state nobody knows is set aside with why, never kept as unhealthy (one rule live and replayed)", () => {
    const q = asked(
      keepStatement(
        heard(
          JSON.stringify({
            machine: "hq-3",
            at: "2026-12-01T10:00:00Z",
            resources: [{ resource: "r", module: "x", state: "poorly" }],
          }),
        ),
      ),
    )
    expect(q.map((x) => x.q)).toEqual(["set-aside"])
    expect(q[0]).toMatchObject({ letters: [{ kind: "statement", stream: "HEALTH", streamSequence: 7 }] })
  })

  it("a report or statement the store cannot hold (a NUL, a year beyond timestamptz, an over-long name) is set aside; a good one is kept", () => {
    const report = (o: Record<string, unknown>) =>
      JSON.stringify({ node: "hq-3", digest: "d", sequence: 3, outcome: "applied", at: "2026-12-01T10:00:00Z", ...o })
    for (const bad of [
      { refused: "a\u0000b" },
      { at: "+275760-09-13T00:00:00Z" },
      { node: "n".repeat(129) },
      { sequence: 1.5 },
    ]) {
      expect(
        asked(keepReport(heard(report(bad)))).map((x) => x.q),
        JSON.stringify(bad),
      ).toEqual(["set-aside"])
    }
    expect(asked(keepReport(heard(report({})))).map((x) => x.q)).toEqual(["kept-report", "write-report"])
  })

  it("in a batch of words, every message is either kept or set aside, and one odd word never keeps the others from being written", () => {
    const good = (i: number) => ({
      subject: "provisioner.failing",
      event: "provisioner.failing",
      seq: i,
      stream: "PROVISIONER",
      saidAt: "2026-12-01T10:00:00Z",
      body: JSON.stringify({
        attempts: 1,
        class: "unreachable",
        consumer: `c${i}`,
        error: "e",
        node: "hq-3",
        provider: "pg",
        "provider-node": "hq-2",
        since: "2026-12-01T09:00:00Z",
      }),
    })
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), (odd) => {
        const batch = odd.map((o, i) =>
          o ? { ...good(i), body: good(i).body.replace('"attempts":1', '"attempts":2147483648') } : good(i),
        )
        const questions: Array<Question> = []
        const ran = runPure(keepWords(batch), (q) => {
          questions.push(q)
          return q.q === "set-aside" ? { fresh: q.letters.map((l) => l.streamSequence) } : { ok: true }
        })
        const aside = questions.flatMap((q) => (q.q === "set-aside" ? q.letters.map((l) => l.streamSequence) : []))
        const kept = questions.flatMap((q) => (q.q === "write-standings" ? q.writes.map((w) => w.consumer) : []))
        expect(aside.sort((a, b) => a - b)).toEqual(odd.flatMap((o, i) => (o ? [i] : [])))
        expect(kept.sort()).toEqual(odd.flatMap((o, i) => (o ? [] : [`c${i}`])).sort())
        expect(ran.result).toBe(kept.length)
        expect(ran.said.length).toBe(aside.length)
      }),
    )
  })
})
