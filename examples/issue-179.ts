// The identity provider's day of hq issue 179 (2026-10-05): restarted at 06:10 with an admin
// password that had been rotated, it failed every consumer on every pass — about 31,000 failed
// attempts — and said so only in its journal until the password was put right at 20:30.
import type { AnswerFact } from "@mesh-core/core/provisioner/model"
import type { Request } from "@mesh-core/core/provisioner/questions"
import { defaultSettings } from "@mesh-core/core/provisioner/model"
import { type Day, documentOf, ok } from "./drive.ts"

const provider = { resource: "identity", receives: "/run/mesh/contributions/identity.json", node: "hq-2" }
const consumers = [
  { as: "letta", node: "hq-3", values: { client: "letta", redirect: "https://letta.hq/callback" } },
  { as: "grafana", node: "hq-1", values: { client: "grafana", redirect: "https://grafana.hq/login/generic_oauth" } },
  { as: "outline", node: "hq-4", values: { client: "outline", redirect: "https://outline.hq/auth/oidc.callback" } },
]
const passwords: Record<string, string> = { letta: "q7J#v2mX!pL9", grafana: "T4n%8sWk@1zR", outline: "b3F&yH6^cE0u" }
const document = documentOf(
  provider.resource,
  consumers.map((c) => ({
    as: c.as,
    secret: `/run/mesh/secrets/identity/${c.as}`,
    node: c.node,
    at: c.node,
    values: c.values,
    derived: { realm: "hq" },
  })),
)

const start = Date.parse("2026-10-05T06:10:00Z")
const fixed = Date.parse("2026-10-05T20:30:00Z")
const end = Date.parse("2026-10-05T23:59:55Z")

const rejected =
  "POST https://id.hq/realms/master/protocol/openid-connect/token: 401 Unauthorized: " +
  `{"error":"invalid_grant","error_description":"Invalid user credentials"}`

const answer = (request: Request, at: number): AnswerFact => {
  const password = passwords[request.as]!
  if (request.q === "create" && at < fixed) {
    return { fact: "create", at, as: request.as, outcome: "error", error: rejected, class: undefined }
  }
  return ok(request, at, password)
}

export const issue179Day: Day = {
  provider,
  settings: defaultSettings,
  start,
  end,
  callMs: 40,
  world: { document: () => ({ text: document }), answer },
}
