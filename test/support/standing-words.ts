// A provider's word on the bus, in the seed's own body (seed 001), for tests of how it is heard.

/** identity on hq-2 says letta on hq-3 keeps failing: the body of `provisioner.failing`. */
export const lettaFailing = {
  attempts: 61,
  class: "credentials-rejected",
  consumer: "letta",
  error: "x",
  node: "hq-3",
  provider: "identity",
  "provider-node": "hq-2",
  since: "2026-10-05T06:10:00Z",
}

/** When the bus says it heard `lettaFailing`: five minutes after its `since`. */
export const lettaFailingSaidAt = "2026-10-05T06:15:00.000Z"

/** pg on hq-2 says `consumer` on hq-3 cannot reach it (a time-out), `attempts` tries since `since`. */
export const unreachableWord = (consumer: string, attempts: number, since = "2026-12-01T06:00:00Z") => ({
  attempts,
  class: "unreachable",
  consumer,
  error: "timeout",
  node: "hq-3",
  provider: "pg",
  "provider-node": "hq-2",
  since,
})
