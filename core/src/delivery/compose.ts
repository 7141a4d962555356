// Composing each machine's declaration from the records, each machine on its own (novox/hq ADR
// 0066): a machine that cannot be worked out is that machine's problem, named, and the others are
// still sent. Everything is read from one index built once per push, so composing a push grows
// with the machines and assignments, not their product.
import { canonicalJson, type JsonObject } from "../json.ts"
import { EventFailing, EventRecovered } from "../provisioner/model.ts"
import { sha256Hex } from "../sha256.ts"
import { type Assignment, busSeat, configOf, type MeshRecords, type ModuleRecord } from "../mesh/records.ts"

export interface Resource {
  readonly module: string
  readonly build: string
  readonly config: JsonObject
  /** What it receives, by requirement: the consumers (module@machine) that require it. */
  readonly receives: Readonly<Record<string, ReadonlyArray<string>>>
}

export interface BusUser {
  readonly user: string
  readonly publish: ReadonlyArray<string>
  readonly subscribe: ReadonlyArray<string>
}

export interface Declaration {
  readonly mesh: string
  readonly node: string
  /** Taken before the declaration is composed (novox/hq issue 204); inside the signed bytes. */
  readonly sequence: number
  readonly resources: ReadonlyArray<Resource>
  /** Only in the declaration of the machine holding the bus. */
  readonly busUsers?: ReadonlyArray<BusUser>
}

export interface Membership {
  readonly mesh: string
  readonly node: string
  readonly module: string
  readonly receives: Readonly<Record<string, ReadonlyArray<string>>>
  readonly states: ReadonlyArray<string>
}

/** What the mesh compares: the digest of the bytes sent, never of something derived beside them. */
export const digestOf = (body: string): string => sha256Hex(body)

export const bodyOf = (d: Declaration): string => canonicalJson(d)

export interface Index {
  readonly records: MeshRecords
  readonly modules: ReadonlyMap<string, ModuleRecord>
  readonly byNode: ReadonlyMap<string, ReadonlyArray<Assignment>>
  readonly consumersOf: ReadonlyMap<string, ReadonlyArray<string>>
  readonly providers: ReadonlySet<string>
  readonly seatHolders: ReadonlyMap<string, string>
  /** The machine holding the bus, when a module claiming the bus seat is assigned. */
  readonly holder: string | undefined
  /** The user list, or why it cannot be worked out. */
  readonly userList:
    | { readonly ok: true; readonly users: ReadonlyArray<BusUser>; readonly text: string }
    | { readonly ok: false; readonly why: string }
}

const list = (names: ReadonlyArray<string> | undefined): ReadonlyArray<string> => names ?? []
const sortedUnique = (names: Iterable<string>): Array<string> => [...new Set(names)].sort()
const userOf = (module: string, node: string) => `${module}@${node}`

/** The subject a membership is kept on, retained last per subject. */
export const membershipKey = (node: string, module: string) => `${node}.${module}`

/**
 * Every module's permissions on the bus, derived from the records. **Every module that receives
 * contributions may publish provisioner.failing and provisioner.recovered**, without any manifest
 * listing them (seed 002's header): a provider cannot forget to ask for the right to say it fails.
 */
const userListOf = (records: MeshRecords, modules: ReadonlyMap<string, ModuleRecord>): Index["userList"] => {
  const users: Array<BusUser> = []
  for (const a of records.assignments) {
    const m = modules.get(a.module)
    if (m === undefined)
      return { ok: false, why: `${a.module} is assigned to ${a.node} but no such module is registered` }
    const standing = list(m.receives).length > 0 ? [EventFailing, EventRecovered] : []
    users.push({
      user: userOf(m.name, a.node),
      publish: sortedUnique([...list(m.publishes), ...standing, ...list(m.states).map((s) => `$KV.${s}.>`)]),
      subscribe: sortedUnique([
        ...list(m.subscribes),
        `$KV.memberships.${membershipKey(a.node, m.name)}`,
        ...list(m.states).map((s) => `$KV.${s}.>`),
      ]),
    })
  }
  users.sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0))
  return { ok: true, users, text: users.length === 0 ? "" : canonicalJson(users) }
}

export const indexRecords = (records: MeshRecords): Index => {
  const modules = new Map(records.modules.map((m) => [m.name, m]))
  const byNode = new Map<string, Array<Assignment>>()
  const consumersOf = new Map<string, Array<string>>()
  const providers = new Set<string>()
  const seatHolders = new Map<string, string>()
  for (const a of records.assignments) {
    const at = byNode.get(a.node)
    if (at === undefined) byNode.set(a.node, [a])
    else at.push(a)
    const m = modules.get(a.module)
    if (m === undefined) continue
    for (const req of list(m.requires)) {
      const c = consumersOf.get(req)
      if (c === undefined) consumersOf.set(req, [userOf(m.name, a.node)])
      else c.push(userOf(m.name, a.node))
    }
    for (const req of list(m.receives)) providers.add(req)
  }
  for (const [, c] of consumersOf) c.sort()
  // Who holds each seat (seed 002's seatHolders): the first module of the catalogue claiming it, on
  // its first machine; then the handovers, newest last, over them.
  const firstNode = new Map<string, string>()
  for (const a of records.assignments) if (!firstNode.has(a.module)) firstNode.set(a.module, a.node)
  const seatModules = new Map<string, string>()
  const holds = (seat: string, module: string, node: string | undefined) => {
    if (node === undefined) return
    seatHolders.set(seat, node)
    seatModules.set(seat, module)
  }
  for (const m of records.modules)
    for (const seat of list(m.claims)) if (!seatHolders.has(seat)) holds(seat, m.name, firstNode.get(m.name))
  for (const h of records.handovers ?? []) {
    if (!modules.has(h.module)) continue
    const on = records.assignments.some((a) => a.module === h.module && a.node === h.node)
    holds(h.seat, h.module, on ? h.node : firstNode.get(h.module))
  }
  // The machine sent first is the bus seat's holder whose module carries the bus's user list: a
  // holder sent no user list carries no grant, so there is nothing to send first (seed 002's brokerBehind).
  const busModule = seatModules.get(busSeat)
  return {
    records,
    modules,
    byNode,
    consumersOf,
    providers,
    seatHolders,
    holder: busModule !== undefined && modules.get(busModule)?.busUsers === true ? seatHolders.get(busSeat) : undefined,
    userList: userListOf(records, modules),
  }
}

export type Composition =
  | {
      readonly ok: true
      readonly declaration: Declaration
      readonly body: string
      readonly digest: string
      readonly builds: Readonly<Record<string, string>>
      /** The digest of the user list it carries, on the machine holding the bus. */
      readonly busUsersDigest: string | undefined
      readonly memberships: ReadonlyArray<Membership>
      /** Each unmet seat dependency of its modules (novox/hq ADR 0207), as a line. */
      readonly unheld: ReadonlyArray<string>
    }
  | { readonly ok: false; readonly why: string }

/** What one machine should be, under the sequence it was allotted. */
export const compose = (index: Index, node: string, sequence: number): Composition => {
  const assigned = [...(index.byNode.get(node) ?? [])].sort((a, b) =>
    a.module < b.module ? -1 : a.module > b.module ? 1 : 0,
  )
  const resources: Array<Resource> = []
  const memberships: Array<Membership> = []
  const builds: Record<string, string> = {}
  const unheld: Array<string> = []
  for (const a of assigned) {
    const m = index.modules.get(a.module)
    if (m === undefined) return { ok: false, why: `${a.module} is assigned here but no such module is registered` }
    for (const req of list(m.requires)) {
      if (!index.providers.has(req))
        return { ok: false, why: `${m.name} requires ${req}, and no module assigned anywhere provides it` }
    }
    for (const seat of list(m.needsSeats)) {
      if (!index.seatHolders.has(seat))
        unheld.push(`${m.name} needs the ${seat} seat, and no module assigned anywhere holds it`)
    }
    const receives: Record<string, ReadonlyArray<string>> = {}
    for (const req of list(m.receives)) receives[req] = index.consumersOf.get(req) ?? []
    resources.push({ module: m.name, build: m.build, config: configOf(a), receives })
    memberships.push({ mesh: index.records.mesh, node, module: m.name, receives, states: sortedUnique(list(m.states)) })
    builds[m.name] = m.build
  }
  let busUsersDigest: string | undefined
  let declaration: Declaration = { mesh: index.records.mesh, node, sequence, resources }
  if (node === index.holder) {
    if (!index.userList.ok) return { ok: false, why: `the bus's user list cannot be worked out: ${index.userList.why}` }
    if (index.userList.text !== "") {
      declaration = { ...declaration, busUsers: index.userList.users }
      busUsersDigest = digestOf(index.userList.text)
    }
  }
  const body = bodyOf(declaration)
  return { ok: true, declaration, body, digest: digestOf(body), builds, busUsersDigest, memberships, unheld }
}

/** One machine ready to be sent. */
export interface Ready {
  readonly node: string
  readonly composition: Extract<Composition, { ok: true }>
}

/**
 * Composes every machine asked, each with the sequence it was allotted before composing began;
 * what cannot be worked out (or was allotted no sequence) is a refusal naming the machine, and the
 * others are still sent. A machine that owns nothing is sent its empty declaration (issue 127):
 * skipping it would leave what it last held in force for ever.
 */
export const composeEach = (
  index: Index,
  names: ReadonlyArray<string>,
  sequences: ReadonlyMap<string, number | { readonly error: string }>,
): {
  readonly sending: ReadonlyArray<Ready>
  readonly refusals: ReadonlyArray<string>
  readonly said: ReadonlyArray<string>
} => {
  const sending: Array<Ready> = []
  const refusals: Array<string> = []
  const said: Array<string> = []
  for (const node of names) {
    const seq = sequences.get(node)
    if (seq === undefined || typeof seq !== "number") {
      refusals.push(`${node}:\n${seq === undefined ? "no sequence was allotted" : seq.error}`)
      continue
    }
    const c = compose(index, node, seq)
    if (!c.ok) {
      refusals.push(`${node}:\n${c.why}`)
      continue
    }
    if (c.declaration.resources.length === 0) said.push(`${node} owns nothing now — sent so it drops what it last held`)
    sending.push({ node, composition: c })
  }
  return { sending, refusals, said }
}

/** What a push ends with when some machines could not be worked out: after the rest were sent, never instead. */
export const couldNotBeResolved = (refusals: ReadonlyArray<string>, sent: number): string | undefined =>
  refusals.length === 0
    ? undefined
    : `${refusals.length} node(s) could not be resolved and were not sent. ${sent} other node(s) were:\n\n${refusals.join("\n\n")}`

/**
 * The all-or-nothing send (seed's sendTo): exactly the machines named, or nothing at all. The rule
 * push does not follow, kept where it means something: a credential rotated across two machines
 * must reach both, or a refusal on the provider would leave the consumer holding a credential the
 * other end has never heard of.
 */
export const composeAllOrNothing = (
  index: Index,
  names: ReadonlyArray<string>,
  sequences: ReadonlyMap<string, number | { readonly error: string }>,
): {
  readonly sending: ReadonlyArray<Ready>
  readonly refused: string | undefined
  readonly said: ReadonlyArray<string>
} => {
  const each = composeEach(index, names, sequences)
  if (each.refusals.length === 0) return { sending: each.sending, refused: undefined, said: each.said }
  return {
    sending: [],
    said: [],
    refused: `nothing was sent. ${each.refusals.length} machine(s) could not be resolved:\n\n${each.refusals.join("\n\n")}`,
  }
}
