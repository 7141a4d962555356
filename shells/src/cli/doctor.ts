// The ground as it is now (issue 44), gathered for the core's doctorFindings: the settings, the bus,
// the store, the metrics port; each probe bounded, none waiting out an outage. `doctor` prints the
// findings; `serve` says the failing ones at start and does not start on those the core says refuse.
import { createServer } from "node:net"
import { printableUrl } from "@mesh-core/core/text/connection-url"
import { parseListenAddress } from "@mesh-core/core/controller/metrics"
import { type Finding, doctorFindings } from "@mesh-core/core/doctor"
import { Effect, Option, Redacted } from "effect"
import { probeBus } from "../bus/probe.ts"
import { readSettings } from "../config.ts"
import { leaseReplicasConfig } from "../lease/settings.ts"
import { probeStore } from "../store/probe.ts"
import { settingProblems } from "./settings-read.ts"

const notTried = { ok: false, why: "not tried: a setting above is refused" } as const
const found = <A>(e: Effect.Effect<A, string>) =>
  e.pipe(
    Effect.timeout(5_000),
    Effect.match({
      onFailure: (why) => ({ ok: false, why: typeof why === "string" ? why : "no answer within 5s" }) as const,
      onSuccess: (a) => ({ ok: true, ...a }) as const,
    }),
  )

/** Why `addr` cannot be listened on, or undefined when it can (bound and closed at once). */
const portTaken = (addr: string) =>
  Effect.callback<string | undefined>((resume) => {
    const a = parseListenAddress(addr)
    if (!a.ok) return resume(Effect.succeed(a.why))
    const server = createServer()
    server.once("error", (e) => resume(Effect.succeed(e.message)))
    server.listen(a.port, a.host, () => server.close(() => resume(Effect.succeed(undefined))))
  })

/** Every finding about the ground; `busClock` false leaves the bus's clock unread (nothing written to the bus). */
export const groundFindings = (metricsAddr: string, busClock = true): Effect.Effect<ReadonlyArray<Finding>> =>
  Effect.gen(function* () {
    const settings = yield* settingProblems
    const read = yield* Effect.option(readSettings)
    const leaseReplicas = yield* Effect.option(leaseReplicasConfig)
    const s = Option.getOrUndefined(read)
    const [bus, store, metricsTaken] = yield* Effect.all(
      [
        s === undefined ? Effect.succeed(notTried) : found(probeBus(Redacted.value(s.natsUrl), busClock)),
        s === undefined ? Effect.succeed(notTried) : found(probeStore(Redacted.value(s.databaseUrl), s.storeSchema)),
        portTaken(metricsAddr),
      ],
      { concurrency: "unbounded" },
    )
    const replicas = s?.busReplicas ?? 1
    return doctorFindings({
      settings,
      busUrl: s === undefined ? "(refused)" : printableUrl(Redacted.value(s.natsUrl)),
      bus,
      replicas: { bus: replicas, lease: Option.getOrElse(leaseReplicas, () => replicas) },
      storeUrl: s === undefined ? "(refused)" : printableUrl(Redacted.value(s.databaseUrl)),
      store,
      metricsAddr,
      metricsTaken,
    })
  })
