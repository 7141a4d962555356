// A build that applies and then crash-loops on its first machine, as a controller records it (area
// "controller"): letta-204 released to hq-3 at 10:00; hq-3 reports it applied; its engine states
// letta-app starting, healthy once, then unhealthy on every statement after (exit 137, a crash
// loop). The controller raises module.letta.hq-3.unhealthy on the second unhealthy statement; the
// gate, judging every 40s, finds it not healthy within its 10m bound, fails it and puts letta-203
// back on hq-3, in one send; hq-4 is never sent it. Made by running the core's programs against a
// simulated world (controller-world.ts); `simulate` replays it.
import { crashLoopAfter, type DayScript, healthyAfter, recordDay } from "./controller-world.ts"

const gateCrashLoopScript: DayScript = {
  start: Date.UTC(2026, 10, 20, 10, 0, 0),
  length: 12 * 60_000,
  settings: { settle: "2m0s", bound: "10m0s", every: "40s", passes: 3 },
  module: "letta",
  resource: "letta-app",
  machines: ["hq-3", "hq-4"],
  builds: [{ build: "letta-203", commit: "a71c3d09e4", health: healthyAfter(15_000) }],
  tick: 40_000,
  statementEvery: 30_000,
  statementOffset: 10_000,
  applyAfter: 4_000,
  happenings: [
    {
      at: 1_000,
      kind: "release",
      first: ["hq-3"],
      build: {
        build: "letta-204",
        commit: "5e1f0c2a9b",
        health: crashLoopAfter(6_000, 10_000, "exited with code 137, restarting (crash loop)"),
      },
    },
  ],
}

export function* gateCrashLoop(): Generator<string> {
  yield* recordDay(gateCrashLoopScript).lines
}
