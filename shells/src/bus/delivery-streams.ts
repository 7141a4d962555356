// Delivery on the bus (bus/nats.ts wraps these as the Bus's operations): each machine's declaration,
// signed, on its own subject in the DECLARATIONS stream; each module's membership in the memberships
// bucket, retained last per subject, so one issued before its runtime arrives waits for it; state
// buckets asserted before the memberships that name them (novox/hq ADR 0201); machines' reports in
// the REPORTS stream; their health statements in HEALTH and their witnesses' verdicts in WITNESSES.
import { type JetStreamManager, jetstream, RetentionPolicy, StorageType } from "@nats-io/jetstream"
import { type KV, Kvm } from "@nats-io/kv"
import { headers, type NatsConnection } from "@nats-io/transport-node"
import { type Membership, membershipKey } from "@mesh-core/core/delivery/compose"
import type { ActOutcome } from "@mesh-core/core/delivery/order"
import { errorText } from "@mesh-core/core/text/error-text"
import type { DeliveryNames, Envelope } from "./delivery-names.ts"
import { epochHeader } from "./subjects.ts"

/** The subject a membership is kept on in the memberships bucket: `$KV.<bucket>.<key>`. */
export const membershipSubject = (names: DeliveryNames, m: Pick<Membership, "node" | "module">) =>
  `$KV.${names.memberships}.${membershipKey(m.node, m.module)}`

/**
 * The streams delivery needs, asserted on every start (never created once at genesis), each kept in
 * `replicas` copies (MESH_BUS_REPLICAS): a stream made with fewer is raised to it.
 */
export const assertDeliveryStreams = async (jsm: JetStreamManager, names: DeliveryNames, replicas = 1) => {
  const streams = [
    { name: names.declarations, subjects: [names.declareSubject("*")], max_msgs_per_subject: 20 },
    { name: names.reports, subjects: [names.reportSubject("*")], max_msgs_per_subject: 100 },
    { name: names.health, subjects: [names.healthSubject("*")], max_msgs_per_subject: 100 },
    { name: names.witnesses, subjects: [names.witnessSubject("*")], max_msgs_per_subject: 100 },
    { name: names.events, subjects: [names.eventSubject("*")], max_msgs_per_subject: 1_000 },
  ]
  for (const s of streams) {
    const config = {
      ...s,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 30 * 24 * 3_600 * 1e9,
      num_replicas: replicas,
    }
    await assertStreamConfig(jsm, config)
  }
}

/** A stream as `config` says it: updated when it exists, made when it does not (asserted on every start). */
export const assertStreamConfig = async (
  jsm: JetStreamManager,
  config: Parameters<JetStreamManager["streams"]["add"]>[0] & { readonly name: string },
) => {
  try {
    await jsm.streams.info(config.name)
    await jsm.streams.update(config.name, config)
  } catch {
    await jsm.streams.add(config)
  }
}

/**
 * Sends one machine its declaration and answers once the stream has it. `epoch`: the controller
 * lease's, when the controller sends it under the lease (issue 13), carried as the `Mesh-Epoch` header
 * as every act of the controller's is; a person's push carries none.
 */
export const publishDeclaration = async (
  nc: NatsConnection,
  names: DeliveryNames,
  node: string,
  envelope: Envelope,
  epoch?: number,
) => {
  const h = headers()
  if (epoch !== undefined) h.set(epochHeader, String(epoch))
  await jetstream(nc).publish(names.declareSubject(node), JSON.stringify(envelope), {
    timeout: 15_000,
    ...(epoch === undefined ? {} : { headers: h }),
  })
}

/**
 * Issues what the machines' modules may do: every state bucket their modules keep, then each
 * module's membership. Every membership is tried; what fails holds back its own machine. `epoch`: the
 * controller lease's, when the controller grants under the lease (issue 26), carried by each
 * membership as the `Mesh-Epoch` header, as a declaration carries it; a person's push carries none.
 * A bucket is made with `replicas` copies; one made before keeps the copies it was made with.
 */
export const issueGrants = async (
  nc: NatsConnection,
  names: DeliveryNames,
  memberships: ReadonlyArray<Membership>,
  epoch?: number,
  replicas = 1,
): Promise<ActOutcome> => {
  const kvm = new Kvm(nc)
  try {
    const states = new Set(memberships.flatMap((m) => m.states))
    for (const state of [...states].sort()) await kvm.create(names.stateBucket(state), { history: 1, replicas })
  } catch (e) {
    return { ok: false, error: `the modules' state could not be asserted on the bus: ${errorText(e)}` }
  }
  let bucket: KV
  try {
    bucket = await kvm.create(names.memberships, { history: 1, replicas })
  } catch (e) {
    return { ok: false, error: `the memberships bucket could not be asserted on the bus: ${errorText(e)}` }
  }
  const refused: Record<string, string> = {}
  const js = jetstream(nc)
  const h = headers()
  if (epoch !== undefined) h.set(epochHeader, String(epoch))
  for (const m of memberships) {
    try {
      // A put as the bucket's own (its key's subject, ADR-8 of NATS), with the header a put cannot carry.
      if (epoch === undefined) await bucket.put(membershipKey(m.node, m.module), JSON.stringify(m))
      else
        await js.publish(membershipSubject(names, m), JSON.stringify(m), {
          headers: h,
          timeout: 15_000,
        })
    } catch (e) {
      refused[m.node] ??= `${m.module}: ${errorText(e)}`
    }
  }
  return Object.keys(refused).length > 0 ? { ok: false, refused } : { ok: true }
}
