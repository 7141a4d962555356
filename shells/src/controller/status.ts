// `status`: the one place a person looks (issue 9). Every failing standing by name, stale ones marked,
// and the words set aside; the open conditions; the release plans in flight and the machines they
// hold back. Each is read on its own: one that cannot be read is said with why and is never well
// (seed 004), and the others are still shown. What is well, and the exit code, are the core's
// (core/src/status/whole.ts).
import { Clock, Config, Effect } from "effect"
import { heldMachines } from "@mesh-core/core/delivery/held"
import { parseDuration } from "@mesh-core/core/duration"
import { StaleAfterSetting, statusOf } from "@mesh-core/core/standings/status"
import type { StatusInputs } from "@mesh-core/core/status/whole"
import { type OpenCondition, openConditions } from "@mesh-core/core/status/conditions"
import { DeliveryStore } from "../store/delivery.ts"
import { GateStore } from "../store/gate.ts"
import { StandingsStore } from "../store/standings.ts"
import { readOrWhy } from "../read-or-why.ts"

/** How long a standing may go unsaid before it is shown stale: MESH_STALE_AFTER, default two of the seed's SayAgainEvery. */
export const staleAfterMs = Config.schema(StaleAfterSetting, "MESH_STALE_AFTER").pipe(
  Config.withDefault("30m"),
  Config.map((s) => parseDuration(s)!),
)

const readStatus = Effect.fn("Status.read")(function* (staleAfter: number) {
  const { kept, aside } = yield* (yield* StandingsStore).failingAndSetAside
  return statusOf(kept, yield* Clock.currentTimeMillis, staleAfter, aside)
})

/** The conditions the store keeps, as `status` and `conditions` read them. */
const storedConditions = Effect.gen(function* () {
  const cs = yield* (yield* GateStore).openConditions
  return cs.map(
    (c): OpenCondition => ({
      key: c.key,
      severity: c.severity,
      kind: c.kind,
      summary: c.summary,
      raised: c.raised,
      source: c.source,
      resolver: c.resolver,
    }),
  )
})

/** Everything open, for `conditions`: the failing standings' conditions and the store's (core/src/status/conditions.ts). */
export const readOpenConditions = Effect.fn("Status.readConditions")(function* (staleAfter: number) {
  return openConditions(yield* readStatus(staleAfter), yield* storedConditions)
})

/** Everything `status` shows, each read on its own. */
export const readWholeStatus = Effect.fn("Status.readWhole")(function* (staleAfter: number) {
  const delivery = yield* DeliveryStore
  const standings = yield* readOrWhy(readStatus(staleAfter))
  const conditions = yield* readOrWhy(storedConditions)
  const plans = yield* readOrWhy(delivery.plansHolding)
  // What the plans hold of the whole mesh, asked as a sweep would be: what a push now would leave.
  const held = plans.ok
    ? yield* readOrWhy(
        delivery.records.pipe(
          Effect.map((records) =>
            records === undefined ? [] : heldMachines(plans.value, records, records.nodes, { kind: "sweep" }).holds,
          ),
        ),
      )
    : { ok: false as const, why: plans.why }
  return { standings, conditions, plans, held } satisfies StatusInputs
})
