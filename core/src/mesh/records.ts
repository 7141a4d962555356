// The mesh's records, as far as delivery reads them: machines, modules (what each publishes,
// subscribes to, keeps as state, receives contributions for, requires, and which seats it claims
// or needs) and assignments of modules to machines. Given to the controller as one JSON document
// (`mesh-controller mesh apply FILE`), checked against these Schemas.
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { firstIssue } from "../decoding.ts"
import { textBounds, textProblem } from "../person.ts"
import { type JsonObject, parseJson } from "../json.ts"

const Names = Schema.Array(Schema.String)

export const ModuleRecord = Schema.Struct({
  name: Schema.String,
  build: Schema.String,
  /** The commit its build was made from, where known: what a rollback puts back. */
  commit: Schema.optionalKey(Schema.String),
  publishes: Schema.optionalKey(Names),
  subscribes: Schema.optionalKey(Names),
  /** Buckets of state the module keeps on the bus (novox/hq ADR 0201). */
  states: Schema.optionalKey(Names),
  /** Logs the module keeps on the bus, each a stream of its own (novox/hq ADR 0297). */
  logs: Schema.optionalKey(Names),
  /** Requirements it is the provider of: it receives contributions for them. */
  receives: Schema.optionalKey(Names),
  /** Requirements it needs a provider for. */
  requires: Schema.optionalKey(Names),
  /** Seats it claims (the bus is the seat `bus`); seats it needs someone to hold (ADR 0207). */
  claims: Schema.optionalKey(Names),
  needsSeats: Schema.optionalKey(Names),
  /** Its declaration carries the bus's user list: the module that runs the bus. */
  busUsers: Schema.optionalKey(Schema.Boolean),
  /** Capabilities its machine must have a detector for (seed 002's reportUnhostable). */
  needs: Schema.optionalKey(Names),
  /** The tools it serves on the bus: what the gate asks are served (its manifest). */
  tools: Schema.optionalKey(Names),
})
export type ModuleRecord = typeof ModuleRecord.Type

export const Assignment = Schema.Struct({
  module: Schema.String,
  node: Schema.String,
  config: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
})
export type Assignment = typeof Assignment.Type

/**
 * A seat handed to a module by a person (`mesh handover MODULE`; seed 002's holdings): who holds the
 * seat from then on, whatever the catalogue's order says, with who handed it over and when.
 */
export const Handover = Schema.Struct({
  seat: Schema.String,
  module: Schema.String,
  /** The machine it holds the seat on; absent, the module's first. */
  node: Schema.optionalKey(Schema.String),
  by: Schema.String,
  at: Schema.String,
})
export type Handover = typeof Handover.Type

export const MeshRecords = Schema.Struct({
  mesh: Schema.String,
  nodes: Names,
  modules: Schema.Array(ModuleRecord),
  assignments: Schema.Array(Assignment),
  /** The seats handed over, oldest first: the newest of a seat is who holds it. */
  handovers: Schema.optionalKey(Schema.Array(Handover)),
})
export type MeshRecords = typeof MeshRecords.Type

export type Decoded<A> =
  | { readonly ok: true; readonly value: A }
  | { readonly ok: false; readonly field: string; readonly problem: string }

export const decodeRecords = (json: unknown): Decoded<MeshRecords> => {
  const exit = Schema.decodeUnknownExit(MeshRecords)(json)
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const issue = firstIssue(exit)!
  return { ok: false, field: issue.field === "(line)" ? "(document)" : issue.field, problem: issue.problem }
}

export const configOf = (a: Assignment): JsonObject => (a.config ?? {}) as JsonObject

/** The seat the bus is: the module claiming it runs the bus. */
export const busSeat = "bus"

/** The newest handover of a seat, or none. */
const handoverOf = (r: MeshRecords, seat: string): Handover | undefined =>
  [...(r.handovers ?? [])].reverse().find((h) => h.seat === seat)

/** How large a records file may be, checked before it is read or parsed (issue 14): 8 MiB. */
export const recordsFileMaxBytes = 8 * 1024 * 1024

/**
 * A name that is one NATS subject token: machines and modules are named in subjects
 * (`…<node>…`), so a space, `.`, `*` or `>` in one would make a wildcard or split a subject.
 */
export const busTokenProblem = (name: string): string | undefined =>
  name === ""
    ? "empty"
    : name.length > textBounds.name
      ? `longer than ${textBounds.name} characters`
      : /[\s.*>\u0000-\u001f\u007f]/u.test(name)
        ? `${JSON.stringify(name)} is not a bus subject token (no spaces, dots, * or >)`
        : undefined

/** What a decoded records document must also be (issue 14): no name twice, names as bus tokens, assignments on known nodes, one module claiming the bus (issue 28). */
export const checkRecords = (r: MeshRecords): Decoded<MeshRecords> => {
  // In one pass each, with sets: the pairwise search took 70 s of a 400,000-machine `mesh apply` (issue 28).
  const twice = (names: ReadonlyArray<string>) => {
    const seen = new Set<string>()
    return names.find((n) => seen.has(n) || (seen.add(n), false))
  }
  // issue 43: a module with no build was kept, and every push sent it
  const named = (field: string, problem: string | undefined) =>
    problem === undefined ? undefined : { ok: false as const, field, problem }
  for (const [i, n] of r.nodes.entries()) {
    const p = named(`nodes[${i}]`, busTokenProblem(n))
    if (p !== undefined) return p
  }
  for (const [i, m] of r.modules.entries()) {
    const p =
      named(`modules[${i}].name`, busTokenProblem(m.name)) ??
      named(`modules[${i}].build`, textProblem(m.build, textBounds.build))
    if (p !== undefined) return p
  }
  const node = twice(r.nodes)
  if (node !== undefined) return { ok: false, field: "nodes", problem: `${node} is named twice` }
  const mod = twice(r.modules.map((m) => m.name))
  if (mod !== undefined) return { ok: false, field: "modules", problem: `${mod} is named twice` }
  const pair = twice(r.assignments.map((a) => `${a.module} on ${a.node}`))
  if (pair !== undefined) return { ok: false, field: "assignments", problem: `${pair} is assigned twice` }
  // One module holds the bus (seed 002-18, 002-43; issue 28): two claiming it made a push pick one by
  // the order of the records, said nowhere.
  // Two may claim it while the bus moves, once a handover the document keeps says which holds it.
  const claimants = r.modules.filter((m) => (m.claims ?? []).includes(busSeat)).map((m) => m.name)
  const handedTo = handoverOf(r, busSeat)?.module
  if (claimants.length > 1 && (handedTo === undefined || !claimants.includes(handedTo)))
    return {
      ok: false,
      field: "modules",
      // `mesh handover` needs a module the records already have, which a new claimant is not (issue 40).
      problem: `${claimants.slice(0, -1).join(", ")} and ${claimants.at(-1)} each claim the bus seat; one module holds the bus: name it in the document's handovers, e.g. "handovers": [{"seat": "bus", "module": "${claimants[0]}", "by": "YOUR NAME", "at": "NOW (RFC 3339)"}]`,
    }
  // An assignment to a machine, or (issue 43) of a module, not in the records: every later push to it failed.
  const [known, modules] = [new Set(r.nodes), new Set(r.modules.map((m) => m.name))]
  for (const a of r.assignments) {
    const problem = !known.has(a.node)
      ? `${a.module} is assigned to ${a.node}, which is not among the nodes`
      : !modules.has(a.module)
        ? `${a.module} is assigned to ${a.node}, but no module of that name is among the modules`
        : undefined
    if (problem !== undefined) return { ok: false, field: "assignments", problem }
  }
  return { ok: true, value: r }
}

/** A records file's text, read whole: the records, or the field and problem. Never throws. */
export const readRecordsText = (text: string): Decoded<MeshRecords> => {
  const json = parseJson(text)
  if ("problem" in json) return { ok: false, field: "(document)", problem: json.problem }
  const decoded = decodeRecords(json.value)
  return decoded.ok ? checkRecords(decoded.value) : decoded
}
