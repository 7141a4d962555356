// A recorded controller day (area "controller"): the release gate at work on letta, as `serve
// --record` writes it. letta-204 is released to hq-3 at 10:03, applies, starts, is healthy for a
// moment and then crash-loops (exit 137); its engine says so, the controller raises
// module.letta.hq-3.unhealthy on the second unhealthy statement, and the gate, finding it not
// healthy within its 10m bound, fails it and puts letta-203 back on hq-3. letta-205, released at
// 10:16, is healthy on hq-3 three times over more than 2m and passes; the rest (hq-4) are sent it.
// Beside the gate: the identity provider's word that letta's credentials are rejected and, later,
// recovered (standings kept); serve restarted at 10:08 (a `started` line, the same recording
// appended to); and the store refusing everything for 30s at 10:09:15, so a statement comes again
// and one tick cannot read the plans. Made by running the core's programs against a simulated world
// (controller-world.ts); `simulate` replays it.
import { crashLoopAfter, type DayScript, healthyAfter, recordDay } from "./controller-world.ts"

const minutes = (m: number, s = 0): number => (m * 60 + s) * 1_000

export const releaseDayScript: DayScript = {
  start: Date.UTC(2026, 10, 20, 10, 0, 0),
  length: minutes(24),
  settings: { settle: "2m0s", bound: "10m0s", every: "40s", passes: 3 },
  module: "letta",
  resource: "letta-app",
  machines: ["hq-3", "hq-4"],
  builds: [
    { build: "letta-202", commit: "3d8e6f1a27", health: healthyAfter(15_000) },
    { build: "letta-203", commit: "a71c3d09e4", health: healthyAfter(15_000) },
  ],
  tick: 40_000,
  statementEvery: 60_000,
  statementOffset: 10_000,
  applyAfter: 5_000,
  happenings: [
    {
      at: minutes(2, 5),
      kind: "word",
      event: "provisioner.failing",
      body: {
        provider: "identity",
        "provider-node": "hq-2",
        consumer: "letta",
        node: "hq-3",
        class: "credentials-rejected",
        error: 'password authentication failed for user "letta"',
        since: "2026-11-20T10:01:35Z",
        attempts: 7,
      },
    },
    {
      at: minutes(3),
      kind: "release",
      first: ["hq-3"],
      build: {
        build: "letta-204",
        commit: "5e1f0c2a9b",
        health: crashLoopAfter(10_000, 20_000, "exited with code 137, restarting (crash loop)"),
      },
    },
    { at: minutes(8), kind: "restart" },
    { at: minutes(9, 15), kind: "store-down", for: 30_000, why: "connect ECONNREFUSED 127.0.0.1:5432" },
    {
      at: minutes(10, 5),
      kind: "word",
      event: "provisioner.recovered",
      body: {
        provider: "identity",
        "provider-node": "hq-2",
        consumer: "letta",
        node: "hq-3",
        since: "2026-11-20T10:01:35Z",
        attempts: 52,
        why: "credentials-accepted",
      },
    },
    {
      at: minutes(16),
      kind: "release",
      first: ["hq-3"],
      build: { build: "letta-205", commit: "9c4e1b7f20", health: healthyAfter(20_000) },
    },
  ],
}

export function* releaseDay(): Generator<string> {
  yield* recordDay(releaseDayScript).lines
}
