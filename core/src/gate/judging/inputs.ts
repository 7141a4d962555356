// What a plan's judging reads, input by input (seed 003 rule 003-3: what could not be read is never
// judged; issue 26). One judging's facts are gathered once for every plan judged, but a plan needs
// only some of them: one input that could not be read ends the judging of the plans that need it,
// and touches no other. Before, a lease bucket or a discovery that did not answer made every plan
// "could not ask", and reports that could not be read were read as "has not reported" — a healthy
// build could fail at its bound on a read that failed.
import {
  ComponentController,
  ComponentEngine,
  ComponentNodeTools,
  coreComponent,
  firstLine,
  type GateFacts,
  type Manifest,
} from "./facts.ts"

/** The inputs of a judging, in the order the gate reads them. */
export const gateInputs = [
  "reports",
  "conditions",
  "discovery",
  "lease",
  "statements",
  "engines",
  "witnesses",
  "manifests",
] as const
export type GateInput = (typeof gateInputs)[number]

export const everyInput: ReadonlySet<GateInput> = new Set(gateInputs)

/**
 * What judging a module on its machines reads, as judgeHealth reads it: for every module the
 * machines' reports and what is wrong there; for a core component what its witnesses say, and then
 * the node-engine its manifest (the builds a send of it delivers) and which build the engines report,
 * the node tools who answers on the bus, the controller who holds the lease; for any other module its
 * manifest (the tools it serves), who serves them when it has tools (or when its manifest could not be
 * read), and what the machines state of what they run. `manifest` undefined: it could not be read.
 */
export const inputsOfModule = (module: string, manifest: Manifest | undefined): ReadonlySet<GateInput> => {
  const core = coreInputs[coreComponent(module)]
  if (core !== undefined) return new Set(["reports", "conditions", "witnesses", ...core])
  const served: ReadonlyArray<GateInput> = manifest === undefined || manifest.tools.length > 0 ? ["discovery"] : []
  return new Set(["reports", "conditions", "manifests", "statements", ...served])
}

/**
 * What a core component's judging reads beyond its witnesses: the node-engine its manifest, which
 * names the builds a send of it delivers, which the engines must report; the node tools who answers
 * on the bus; the controller who holds the lease.
 */
const coreInputs: Readonly<Record<string, ReadonlyArray<GateInput>>> = {
  [ComponentEngine]: ["engines", "manifests"],
  [ComponentNodeTools]: ["discovery"],
  [ComponentController]: ["lease"],
}

/**
 * What a plan's judging reads: what each module it judges reads, its own and those its send carried.
 * `manifests` undefined: they could not be read.
 */
export const inputsOfPlan = (
  module: string,
  carried: ReadonlyArray<{ readonly module: string }>,
  manifests: ReadonlyMap<string, Manifest> | undefined,
): ReadonlySet<GateInput> =>
  new Set([module, ...carried.map((c) => c.module)].flatMap((m) => [...inputsOfModule(m, manifests?.get(m))]))

/** Each input a judging's facts could not read, with the sentence that says so, in the order the gate reads them. */
export const unreadOf = (f: GateFacts): ReadonlyArray<readonly [GateInput, string]> => {
  const why: ReadonlyArray<readonly [GateInput, string | undefined, string]> = [
    ["reports", f.reportsUnread, "what the machines reported cannot be read"],
    ["conditions", f.open?.ok === false ? f.open.why : undefined, "what is wrong cannot be read"],
    ["discovery", f.served.ok ? undefined : f.served.why, "who serves what on the bus cannot be asked"],
    ["lease", f.holder.ok ? undefined : f.holder.why, "who holds the controller lease cannot be read"],
    ["statements", f.health.ok ? undefined : f.health.why, "what the machines state of what they run cannot be read"],
    ["engines", f.enginesUnread, "the engines' builds cannot be read"],
    ["witnesses", f.witnessesUnread, "what the witnesses said cannot be read"],
    ["manifests", f.manifestsUnread, "the modules' manifests cannot be read"],
  ]
  return why.flatMap(([input, w, said]) => (w === undefined ? [] : [[input, `${said}: ${firstLine(w)}`] as const]))
}
