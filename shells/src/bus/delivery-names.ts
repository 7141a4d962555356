// Delivery's names on the bus: the streams, subjects and buckets of a mesh's prefix, and the envelope
// a declaration travels in. What is sent on them is the bus's (bus/nats.ts: assertDeliveryStreams,
// publishDeclaration, issueGrants).
import { prefixed } from "./subjects.ts"

export interface DeliveryNames {
  readonly declarations: string
  readonly reports: string
  readonly declareSubject: (node: string) => string
  readonly reportSubject: (node: string) => string
  readonly memberships: string
  readonly stateBucket: (state: string) => string
  /** A module's log: its stream, and the subject it is written on (novox/hq ADR 0297). */
  readonly logStream: (log: string) => string
  readonly logSubject: (log: string) => string
  readonly health: string
  readonly healthSubject: (node: string) => string
  /** Each machine's witness's verdicts on the core components it runs (seed 003's witnessed, issue 26). */
  readonly witnesses: string
  readonly witnessSubject: (node: string) => string
  readonly eventSubject: (event: string) => string
  readonly events: string
  /** The mesh's name in what services say of themselves, so meshes sharing a bus do not mix. */
  readonly mesh: string
}

export const deliveryNames = (prefix: string): DeliveryNames => {
  const { dot, upper } = prefixed(prefix)
  return {
    declarations: `${upper}DECLARATIONS`,
    reports: `${upper}REPORTS`,
    declareSubject: (node) => `${dot}mesh.declare.${node}`,
    reportSubject: (node) => `${dot}mesh.report.${node}`,
    memberships: `${upper}memberships`,
    stateBucket: (state) => `${upper}state_${state.replace(/[^A-Za-z0-9_-]/g, "_")}`,
    logStream: (log) => `${upper}LOG_${log.replace(/[^A-Za-z0-9_-]/g, "_")}`,
    logSubject: (log) => `${dot}mesh.log.${log.replace(/[^A-Za-z0-9_-]/g, "_")}`,
    health: `${upper}HEALTH`,
    healthSubject: (node) => `${dot}mesh.health.${node}`,
    witnesses: `${upper}WITNESSES`,
    witnessSubject: (node) => `${dot}mesh.witness.${node}`,
    eventSubject: (event) => `${dot}mesh.event.${event}`,
    events: `${upper}EVENTS`,
    mesh: prefix,
  }
}

/** The envelope on the wire: the declaration's exact bytes and the controller's signature over them. */
export interface Envelope {
  readonly body: string
  readonly signature: string
  readonly key: string
}
