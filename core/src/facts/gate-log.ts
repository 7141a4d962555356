// The fact log of a release gate (area "gate", version 1): what a gate runner fed a gate, so a recorded
// rollout can be replayed through the same judging. Line 1 names the gate (the module, its build and
// commits, the machines it was sent to, what it carried) and the facts the rollback decision reads;
// every later line is a fact: a send, a machine's report, a condition raised or cleared, a health
// statement, a witness's verdict, what the bus's discovery answered, an engine's build, who holds the
// lease, and each judging.
import { Schema } from "effect"
import { firstIssue } from "./issues.ts"
import { parseDuration } from "../duration.ts"
import { type BadLine, parseRfc3339 } from "./log.ts"

const at = Schema.String
const Names = Schema.Array(Schema.String)

export const GateHeader = Schema.Struct({
  format: Schema.Literal("mesh-core.facts"),
  version: Schema.Literal(1),
  area: Schema.Literal("gate"),
  gate: Schema.Struct({
    plan: Schema.String,
    module: Schema.String,
    build: Schema.String,
    commit: Schema.String,
    previous: Schema.String,
    machines: Names,
    carried: Schema.optionalKey(Schema.Array(Schema.Struct({ module: Schema.String, node: Schema.String }))),
    manifests: Schema.optionalKey(Schema.Record(Schema.String, Schema.Struct({ tools: Names, deliveredVersions: Names }))),
  }),
  settings: Schema.optionalKey(Schema.Struct({
    settle: Schema.optionalKey(Schema.String), bound: Schema.optionalKey(Schema.String),
    every: Schema.optionalKey(Schema.String), passes: Schema.optionalKey(Schema.Number),
  })),
  rollback: Schema.Struct({
    unchanged: Schema.Boolean,
    verdictKept: Schema.Boolean,
    previousBuild: Schema.NullOr(Schema.Struct({ build: Schema.String, commit: Schema.String })),
  }),
})
export type GateHeader = typeof GateHeader.Type

const Resource = Schema.Struct({ resource: Schema.String, module: Schema.String, state: Schema.Literals(["healthy", "starting", "unhealthy"]), reason: Schema.optionalKey(Schema.String) })

export const GateFactLines = {
  send: Schema.Struct({ at, fact: Schema.Literal("send"), machines: Names }),
  report: Schema.Struct({ at, fact: Schema.Literal("report"), machine: Schema.String, outcome: Schema.String, current: Schema.Boolean }),
  condition: Schema.Struct({
    at, fact: Schema.Literal("condition"), action: Schema.Literals(["raise", "clear"]), key: Schema.String, source: Schema.optionalKey(Schema.String),
    scope: Schema.optionalKey(Schema.String), id: Schema.optionalKey(Schema.String), machine: Schema.optionalKey(Schema.String),
    also: Schema.optionalKey(Names), kind: Schema.optionalKey(Schema.String), summary: Schema.optionalKey(Schema.String),
  }),
  statement: Schema.Struct({ at, fact: Schema.Literal("statement"), machine: Schema.String, resources: Schema.Array(Resource) }),
  witness: Schema.Struct({
    at, fact: Schema.Literal("witness"), machine: Schema.String, component: Schema.String, outcome: Schema.String,
    from: Schema.String, to: Schema.String, why: Schema.String,
  }),
  discovery: Schema.Struct({
    at, fact: Schema.Literal("discovery"),
    served: Schema.optionalKey(Schema.Record(Schema.String, Schema.Struct({ runtime: Schema.Boolean, tools: Names }))),
    error: Schema.optionalKey(Schema.String),
  }),
  engine: Schema.Struct({ at, fact: Schema.Literal("engine"), machine: Schema.String, build: Schema.String }),
  holder: Schema.Struct({ at, fact: Schema.Literal("holder"), taken: Schema.String, ready: Schema.Boolean, why: Schema.optionalKey(Schema.String) }),
  judge: Schema.Struct({ at, fact: Schema.Literal("judge") }),
} as const

export type GateFactLine = { [K in keyof typeof GateFactLines]: (typeof GateFactLines)[K]["Type"] }[keyof typeof GateFactLines]

export type GateLineResult =
  | { readonly ok: true; readonly header: GateHeader; readonly fact: undefined }
  | { readonly ok: true; readonly header: undefined; readonly fact: GateFactLine & { readonly atMs: number } }
  | { readonly ok: true; readonly header: undefined; readonly fact: undefined }
  | { readonly ok: false; readonly bad: BadLine }

/** Reads one line of a gate's fact log; `first` for line 1, `lastAt` the previous fact's time. */
export const readGateLine = (line: number, text: string, first: boolean, lastAt: number): GateLineResult => {
  if (text.trim() === "") return { ok: true, header: undefined, fact: undefined }
  const bad = (field: string, problem: string): GateLineResult => ({ ok: false, bad: { line, field, problem } })
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return bad("(line)", `not JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return bad("(line)", "not a JSON object")
  const r = json as Record<string, unknown>
  if (first) {
    const issue = firstIssue(Schema.decodeUnknownExit(GateHeader)(json))
    if (issue !== undefined) return bad(issue.field, issue.problem)
    const h = json as GateHeader
    for (const name of ["settle", "bound", "every"] as const) {
      const v = h.settings?.[name]
      if (v !== undefined && parseDuration(v) === undefined) return bad(`settings.${name}`, `${JSON.stringify(v)} is not a duration`)
    }
    return { ok: true, header: h, fact: undefined }
  }
  const kind = r["fact"]
  if (typeof kind !== "string" || !(kind in GateFactLines)) {
    return bad("fact", `must be one of ${Object.keys(GateFactLines).map((k) => JSON.stringify(k)).join(", ")}, not ${JSON.stringify(kind)}`)
  }
  const issue = firstIssue(Schema.decodeUnknownExit(GateFactLines[kind as keyof typeof GateFactLines] as unknown as Schema.Codec<unknown>)(json))
  if (issue !== undefined) return bad(issue.field, issue.problem)
  const atMs = parseRfc3339(r["at"] as string) ?? Number.NaN
  if (!Number.isFinite(atMs)) return bad("at", `${JSON.stringify(r["at"])} is not an RFC 3339 time`)
  if (atMs < lastAt) return bad("at", `${r["at"]} is before the previous fact's time`)
  return { ok: true, header: undefined, fact: { ...(json as GateFactLine), atMs } }
}
