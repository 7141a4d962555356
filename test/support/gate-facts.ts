// What the gate reads of the world at a judging (GateFactsRecord), for tests that drive it.
import type { GateFactsRecord } from "@mesh-core/core/gate/judging/facts"

/**
 * The facts at `now` with `reports` and nothing else to say: every read answered, no machine's node
 * tools, statement or condition, nothing rolled back, no lease holder; `over` says what differs.
 */
export const gateFacts = (
  now: number,
  reports: GateFactsRecord["reports"] = {},
  over: Partial<GateFactsRecord> = {},
): GateFactsRecord => ({
  now,
  reports,
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
  ...over,
})

/** Each of `machines` reported at `at` on what it was last sent, with `outcome`. */
export const reportedOn = (machines: ReadonlyArray<string>, at: number, outcome = "applied") =>
  Object.fromEntries(machines.map((m) => [m, { at, current: true, outcome }]))
