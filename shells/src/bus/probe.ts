// The bus as `doctor` finds it (issue 44): a connection of its own, whether JetStream answers, how many
// servers its cluster has, its message limit, and its clock (the time JetStream stamps on a message
// in a memory stream of the doctor's own, removed at once: NATS tells its time nowhere else).
import { jetstream, type JetStreamManager, jetstreamManager, StorageType } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { Effect } from "effect"
import { natsConnectOptions } from "../bus-credentials.ts"
import { errorText } from "@mesh-core/core/text/error-text"
import { withoutSecrets } from "@mesh-core/core/text/connection-url"

export interface BusFound {
  readonly noJetStream: string | undefined
  readonly servers: number
  readonly clustered: boolean
  readonly jetStreamOff: boolean
  readonly maxPayload: number
  readonly skewMs: number | undefined
}

/** The time JetStream stamps on a message, less this machine's at the middle of the round trip. */
const clockSkew = async (nc: NatsConnection, jsm: JetStreamManager): Promise<number | undefined> => {
  const name = `MESH_DOCTOR_${process.pid}_${Date.now()}`
  await jsm.streams.add({ name, subjects: [`${name}.clock`], storage: StorageType.Memory, max_msgs: 1 })
  try {
    const before = Date.now()
    const { seq } = await jetstream(nc).publish(`${name}.clock`, "")
    const after = Date.now()
    const stored = await jsm.streams.getMessage(name, { seq })
    return stored === null ? undefined : stored.time.getTime() - (before + after) / 2
  } finally {
    await jsm.streams.delete(name)
  }
}

export const probeBus = (url: string, clock = true): Effect.Effect<BusFound, string> =>
  Effect.tryPromise({
    try: async (signal) => {
      const nc = await connect({ ...natsConnectOptions(url), timeout: 3_000, maxReconnectAttempts: 0 })
      signal.addEventListener("abort", () => void nc.close())
      try {
        // A clustered server names every server of its cluster in connect_urls, itself included.
        const servers = Math.max(1, nc.info?.connect_urls?.length ?? 1)
        const clustered = nc.info?.cluster !== undefined
        const jetStreamOff = nc.info?.jetstream !== true
        const maxPayload = nc.info?.max_payload ?? 1024 * 1024
        const jsm = await jetstreamManager(nc, { timeout: 3_000 }).then(
          async (m) => (await m.getAccountInfo(), m),
          (e: unknown) => errorText(e),
        )
        const noJetStream = typeof jsm === "string" ? jsm : undefined
        const skewMs = typeof jsm === "string" || !clock ? undefined : await clockSkew(nc, jsm).catch(() => undefined)
        return { noJetStream, jetStreamOff, servers, clustered, maxPayload, skewMs }
      } finally {
        await nc.close()
      }
    },
    catch: (e) => withoutSecrets(errorText(e), url),
  })
