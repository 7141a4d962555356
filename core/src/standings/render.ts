// How `status` reads: whether the mesh is well, and every failing standing by name.
import { rfc3339 } from "../duration.ts"
import type { Status } from "./standings.ts"

export const statusLines = (s: Status): ReadonlyArray<string> => {
  if (s.well) return ["mesh: well — no provider is failing any consumer"]
  const n = s.failing.length
  const out = [`mesh: NOT WELL — ${n} failing standing${n === 1 ? "" : "s"} (a provider keeps failing a consumer)`]
  for (const f of s.failing) {
    out.push(
      `  ${f.provider} on ${f.providerNode} is failing ${f.consumer}${f.consumerNode ? ` on ${f.consumerNode}` : ""}: ` +
        `${f.class} since ${f.since}, ${f.attempts} attempts (said ${rfc3339(f.at)})`,
      `    last error: ${f.error}`,
    )
  }
  return out
}

export const statusJson = (s: Status): string =>
  JSON.stringify({
    well: s.well,
    failing: s.failing.map((f) => ({
      provider: f.provider, providerNode: f.providerNode, consumer: f.consumer, consumerNode: f.consumerNode ?? null,
      class: f.class, since: f.since, attempts: f.attempts, error: f.error, saidAt: new Date(f.at).toISOString(),
    })),
  })
