// What a judging of the release gate reads (seed 003, ADR 0236), gathered once for every machine it
// judges: the machines' reports, their engines' builds, who serves what on the bus, the open
// conditions, the witnesses' verdicts, who holds the controller lease, and what each machine states
// of the health of what it runs (ADR 0240). Anything that could not be read carries why, and is
// never read as healthy.

export type Readable<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly why: string }

export interface Reported {
  readonly at: number | undefined
  /** The report is of the declaration the machine was last sent. */
  readonly current: boolean
  readonly outcome: string
}

export interface Served {
  readonly runtime: boolean
  readonly tools: ReadonlySet<string>
}

export interface Condition {
  readonly key: string
  /** Who raised it: the gate's own (`DG`) are no evidence about a build. */
  readonly source: string
  readonly raised: number
  readonly scope: string
  readonly id: string
  readonly machine: string | undefined
  readonly also: ReadonlyArray<string>
  readonly kind: string
  readonly summary: string
}

export interface WitnessVerdict {
  readonly component: string
  readonly outcome: string
  readonly from: string
  readonly to: string
  readonly why: string
  readonly at: number
}

export interface LeaseHolder {
  readonly taken: number
  readonly ready: boolean | undefined
  readonly why: string | undefined
}

export type HealthState = "healthy" | "starting" | "unhealthy"

export interface ResourceHealth {
  readonly resource: string
  readonly module: string
  readonly state: HealthState
  readonly reason: string | undefined
}

/** What one machine's engine states of every long-running resource it runs (ADR 0240). */
export interface Statement {
  readonly machine: string
  readonly at: number
  readonly resources: ReadonlyArray<ResourceHealth>
}

export interface GateFacts {
  readonly now: number
  readonly reports: ReadonlyMap<string, Reported>
  /**
   * Why the machines' reports could not be read, when they could not (003-3): then no machine's
   * report is known, which is never "it has not reported".
   */
  readonly reportsUnread?: string | undefined
  readonly engines: ReadonlyMap<string, string>
  /** Why the engines' builds could not be read, when they could not: never read as the new build. */
  readonly enginesUnread?: string | undefined
  readonly served: Readable<ReadonlyMap<string, Served>>
  /** Undefined when no condition keeper judges (the conditions are then not evidence). */
  readonly open: Readable<ReadonlyArray<Condition>> | undefined
  readonly rolledBack: ReadonlyMap<string, ReadonlyArray<WitnessVerdict>>
  /** Why the witnesses' verdicts could not be read, when they could not. */
  readonly witnessesUnread?: string | undefined
  /** Why the modules' manifests (the tools each serves) could not be read, when they could not. */
  readonly manifestsUnread?: string | undefined
  readonly holder: Readable<LeaseHolder | undefined>
  /** Each machine's newest statement; a machine absent never stated one. */
  readonly health: Readable<ReadonlyMap<string, Statement>>
}

/** What the gate knows of a module: its tools, and for the engine the builds a send delivers. */
export interface Manifest {
  readonly tools: ReadonlyArray<string>
  readonly deliveredVersions: ReadonlyArray<string>
}

export const noManifest: Manifest = { tools: [], deliveredVersions: [] }

// The core components, as a witness names them; anything else is judged by its own health.
export const ComponentController = "controller"
export const ComponentEngine = "node-engine"
export const ComponentNodeTools = "node-tools"

export const coreComponent = (module: string): string => {
  switch (module) {
    case "controller":
      return ComponentController
    case "node-engine":
      return ComponentEngine
    case "node-tools":
      return ComponentNodeTools
    default:
      return ""
  }
}

/** The gate's own probe: its conditions are raised by a plan as it judges. */
export const gateProbe = "DG"
export const kindCoreBehind = "core-behind"

export const short = (commit: string): string => commit.slice(0, 7)
export const firstLine = (text: string): string => text.split("\n")[0] ?? ""
