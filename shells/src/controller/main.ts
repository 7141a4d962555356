// The whole controller in one screen: each worker a layer that forks its loop into the layer's scope
// and gives itself what only it uses (the gate's answers, the live page); what they share given once
// beneath them. Start and stop follow the layers' dependencies: a layer is built after what it
// requires and closed before it. What acts requires Holding (lease/holding.ts), which only a term
// under the controller lease gives (terms.ts, issue 13): none starts before the lease is held, and the
// lease is given back once the last has stopped. Nothing outside stops a worker: each waits out the
// store or the bus under untilItAnswers (retry.ts).
import { Effect, Layer } from "effect"
import { GateRunnerLive } from "../gate/runner.ts"
import { VerbResponderLive } from "../gate/verbs.ts"
import { TakeoverFenced } from "../lease/fence.ts"
import { CensusLive } from "../metrics/census.ts"
import { HeartbeatLive, LeaseFollowerLive } from "../metrics/probes.ts"
import { StandingsFollowerLive } from "./follow.ts"
import { HealthFollowerLive } from "./health.ts"
import { WatchPortLive } from "./live.ts"
import { ReportsFollowerLive } from "./reports.ts"
import { actingTerms } from "./terms.ts"
import { type ServeOptions, Shared } from "./shared.ts"
import { WitnessFollowerLive } from "./witnesses.ts"

/** What acts, one term under the lease at a time; the takeover recorded in the store at once (issue 26). */
const Acting = (batch: number) =>
  Layer.mergeAll(
    StandingsFollowerLive(batch),
    ReportsFollowerLive,
    HealthFollowerLive,
    WitnessFollowerLive,
    GateRunnerLive,
    LeaseFollowerLive,
    TakeoverFenced,
  )
/** The followers a term waits for before its holder says it is ready: their loops' names. */
const termFollowers = ["standings", "reports", "health"]

/** What a candidate runs too: operators' verbs are refused naming the holder, /readyz says 503. */
const Candidate = (metricsAddr: string) =>
  Layer.mergeAll(CensusLive, HeartbeatLive, VerbResponderLive, WatchPortLive(metricsAddr))

interface ControllerOptions extends ServeOptions {
  /** Most words the standings follower keeps in one transaction. */
  readonly batch: number
  /** Where /metrics, /healthz and /readyz (issue 10) and the live page (issue 29) listen. */
  readonly metricsAddr: string
}

/**
 * `serve`: term after term of what acts under the lease, beside what a candidate runs, over what they
 * share (shared.ts), until a signal ends it. The settings and the Journal are the caller's.
 */
export const serveController = (options: ControllerOptions) =>
  actingTerms(Acting(options.batch), termFollowers).pipe(
    Effect.provide(Candidate(options.metricsAddr).pipe(Layer.provideMerge(Shared(options)))),
  )
