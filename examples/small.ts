// A short day a person can read: two consumers, a secret written late, a database that goes away
// and comes back, a contributions file that cannot be read for a minute, and a consumer withdrawn.
// Settings are quickened (a pass every 30s, announced after 2m) so the whole story is 25 minutes.
import type { AnswerFact } from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import { type Day, documentOf, ok } from "./drive.ts"

const provider = { resource: "postgres", receives: "/run/mesh/contributions/postgres.json", node: "hq-1" }
const entry = (as: string, node: string) => ({
  as,
  secret: `/run/mesh/secrets/postgres/${as}`,
  node,
  at: node,
  values: { name: as, extensions: ["vector"] },
})
const both = documentOf(provider.resource, [entry("letta", "hq-3"), entry("grafana", "hq-1")])
const lettaOnly = documentOf(provider.resource, [entry("letta", "hq-3")])
const passwords: Record<string, string> = { letta: "Zx81!mq04Lp", grafana: "Rb27?yt55Kw" }

const at = (clock: string): number => Date.parse(`2026-11-20T${clock}Z`)
const start = at("09:00:00")

const document = (t: number) => {
  if (t >= at("09:15:00") && t < at("09:16:00")) {
    return { error: `open ${provider.receives}: permission denied` }
  }
  return { text: t < at("09:18:00") ? both : lettaOnly }
}

const answer = (request: Request, t: number): AnswerFact => {
  const { as } = request
  if (request.q === "secret" && as === "grafana" && t < at("09:01:00")) {
    return {
      fact: "secret",
      at: t,
      as,
      read: "failed",
      error: `open /run/mesh/secrets/postgres/${as}: no such file or directory`,
    }
  }
  const down = t >= at("09:05:00") && t < at("09:11:30")
  if (down && as === "grafana" && request.q === "holds") return { fact: "holds", at: t, as, outcome: "not-held" }
  if (down && as === "grafana" && request.q === "create") {
    return {
      fact: "create",
      at: t,
      as,
      outcome: "error",
      class: undefined,
      error: `dial tcp 127.0.0.1:5433: connect: connection refused (postgres://grafana:${encodeURIComponent(passwords[as]!)}@127.0.0.1:5433/grafana)`,
    }
  }
  return ok(request, t, passwords[as]!)
}

export const smallDay: Day = {
  provider,
  settings: { every: 30_000, verifyEvery: 60_000, holdsTimeout: 30_000, failingAfter: 120_000, sayAgainEvery: 300_000 },
  start,
  end: at("09:25:00"),
  callMs: 25,
  world: { document, answer },
}
