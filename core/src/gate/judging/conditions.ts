// The open conditions as evidence about a build (seed 003's judgeHealth and aboutTheMachine): which
// are about a module on a machine, and which about the machine itself.
//
// The seed reads every open condition once per module judged. Here they are indexed by machine once
// per judging, so a judging costs machines plus conditions, not their product; `judgeHealth` given
// the whole list (`rescan`) is the seed's way, kept to show both answer the same.
import {
  ComponentEngine,
  ComponentNodeTools,
  type Condition,
  coreComponent,
  type GateFacts,
  gateProbe,
  kindCoreBehind,
} from "./facts.ts"

const onMachine = (c: Condition, machine: string): boolean =>
  c.machine === machine || c.also.includes(machine) || (c.scope === "machine" && c.id === machine)

/** Finds the first open condition, in the order kept, that is evidence about a module on a machine. */
export type FirstCondition = (module: string, machine: string, since: number) => Condition | undefined

const eligible = (c: Condition, since: number) => c.source !== gateProbe && c.raised >= since

/** The seed's way: every open condition read for every module judged. */
export const scanConditions =
  (open: ReadonlyArray<Condition>): FirstCondition =>
  (module, machine, since) =>
    open.find(
      (c) => eligible(c, since) && onMachine(c, machine) && (c.scope === "machine" || c.id.split(".").includes(module)),
    )

/**
 * The open conditions indexed once per judging: machine-level ones by each machine they are about
 * (`aboutMachine`: aboutTheMachine sorts those, so judgeHealth never meets them), and the rest by
 * machine and by each part of their subject, in the order kept (`first`). A judging then costs
 * machines plus conditions, not their product.
 */
export const indexConditions = (open: ReadonlyArray<Condition>) => {
  const aboutMachine = new Map<string, Array<Condition>>()
  // The rest by machine and subject part, as one key.
  const byPart = new Map<string, Array<Condition>>()
  // Each condition once per key: its machines and its subject's parts are sets.
  const push = (m: Map<string, Array<Condition>>, k: string, c: Condition) => {
    if (m.has(k)) m.get(k)!.push(c)
    else m.set(k, [c])
  }
  for (const c of open) {
    const on = new Set([
      ...(c.machine === undefined ? [] : [c.machine]),
      ...c.also,
      ...(c.scope === "machine" ? [c.id] : []),
    ])
    for (const m of on) {
      if (c.scope === "machine") push(aboutMachine, m, c)
      else for (const part of new Set(c.id.split("."))) push(byPart, `${m}\u0000${part}`, c)
    }
  }
  const first: FirstCondition = (module, machine, since) =>
    byPart.get(`${machine}\u0000${module}`)?.find((c) => eligible(c, since))
  return { aboutMachine, first }
}

/** What one judging found wrong with a machine itself, apart from its modules. */
export interface MachineWord {
  /** The machine's open conditions, less those sorted here. */
  readonly conditions: ReadonlyArray<Condition> | undefined
  readonly on: ReadonlyMap<string, string>
  readonly whole: string
}

/**
 * Sorts the conditions raised about a machine itself since a send was made there (issue 281): one
 * naming a module the send moved is that module's; the core being behind is the core's when the
 * send moved the engine or the node tools, and otherwise no evidence about what was sent; anything
 * else holds the machine back as a whole.
 */
export const aboutTheMachine = (
  machine: string,
  moved: ReadonlyArray<string>,
  since: number,
  f: GateFacts,
  conditions: ReadonlyArray<Condition> | undefined,
): MachineWord => {
  if (f.open === undefined || !f.open.ok) return { conditions, on: new Map(), whole: "" }
  const core = moved.filter((m) => [ComponentEngine, ComponentNodeTools].includes(coreComponent(m)))
  const on = new Map<string, string>()
  let whole = ""
  const kept: Array<Condition> = []
  for (const c of conditions ?? []) {
    const aboutIt = c.scope === "machine" && (c.id === machine || c.machine === machine || c.also.includes(machine))
    if (!aboutIt || c.source === gateProbe || c.raised < since) {
      kept.push(c)
      continue
    }
    const said = `raised since it was sent: ${c.key} — ${c.summary}`
    const parts = c.id.split(".")
    const named = moved.filter((m) => parts.includes(m))
    const coreBehind = c.kind === kindCoreBehind || c.key.endsWith(`.${kindCoreBehind}`)
    if (named.length > 0) {
      for (const m of named) if (!on.has(m)) on.set(m, said)
    } else if (coreBehind && core.length > 0) {
      for (const m of core) if (!on.has(m)) on.set(m, `${said} (its settle window runs to the gate's bound)`)
    } else if (!coreBehind && whole === "") {
      whole = `${machine} as a whole: ${said}`
    }
  }
  return { conditions: kept, on, whole }
}
