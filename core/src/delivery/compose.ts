// Composing each machine's declaration from the records, each machine on its own (novox/hq ADR
// 0066): a machine that cannot be worked out is that machine's problem, named, and the others are
// still sent. Everything is read from one index built once per push, so composing a push grows
// with the machines and assignments, not their product.
import { canonicalJson, type JsonObject } from "../json.ts"
import { EventFailing, EventRecovered } from "../provisioner/model.ts"
import { sha256Hex } from "../sha256.ts"
import type { MembershipRecord } from "./questions.ts"
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

export type Membership = typeof MembershipRecord.Type

/** What the mesh compares: the digest of the bytes sent, never of something derived beside them. */
export const digestOf = (body: string): string => sha256Hex(body)

const list = (names: ReadonlyArray<string> | undefined): ReadonlyArray<string> => names ?? []
const sortedUnique = (names: Iterable<string>): Array<string> => [...new Set(names)].sort()
const userOf = (module: string, node: string) => `${module}@${node}`

/** A sorted list of names with one more in its place, unless it is there already. */
const withSorted = (sorted: ReadonlyArray<string>, name: string): ReadonlyArray<string> => {
  const at = sorted.findIndex((s) => s >= name)
  return sorted[at] === name ? sorted : at < 0 ? [...sorted, name] : sorted.toSpliced(at, 0, name)
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The assignments in the order of their users' names (`module@node`), as sorting the names would
 * give it, without sorting them: two sorts of 300,000 names, the user list's and a requirement's
 * consumers', were a tenth of a push and grew faster than the mesh (issue 41). Modules in the order
 * of `module@`, each module's machines in the order of their names, sorted once. A module whose name
 * holds an `@` can interleave with another's (`a@b` and `a` on `b…`): then the names are sorted.
 */
const inUserOrder = (all: ReadonlyArray<Assignment>, byNode: ReadonlyMap<string, ReadonlyArray<Assignment>>) => {
  if (all.some((a) => a.module.includes("@")))
    return all.toSorted((a, b) => byText(userOf(a.module, a.node), userOf(b.module, b.node)))
  const inNodeOrder = [...byNode.keys()].sort().flatMap((node) => byNode.get(node)!)
  const byModule = Map.groupBy(inNodeOrder, (a) => a.module)
  return [...byModule.keys()].sort((a, b) => byText(`${a}@`, `${b}@`)).flatMap((m) => byModule.get(m)!)
}

/** The subject a membership is kept on, retained last per subject. */
export const membershipKey = (node: string, module: string) => `${node}.${module}`

/**
 * The bus's user list: a user per assignment, with its module's permissions and its own membership
 * put in its sorted place in its module's subscriptions (sorting them again for each of 300,000
 * assignments was a tenth of a push).
 */
const userListOf = (
  records: MeshRecords,
  ordered: ReadonlyArray<Assignment>,
  parts: ReadonlyMap<string, ModuleParts>,
):
  | { readonly ok: true; readonly users: ReadonlyArray<BusUser>; readonly text: string; readonly digest: string }
  | { readonly ok: false; readonly why: string } => {
  const unknown = records.assignments.find((a) => !parts.has(a.module))
  if (unknown !== undefined)
    return { ok: false, why: `${unknown.module} is assigned to ${unknown.node} but no such module is registered` }
  // Made in the order the list is written, so they lie in memory as they are read to be written (300,000
  // at 100,000 machines), their keys in sorted order: the list's JSON is its canonical spelling,
  // written at native speed.
  const users: ReadonlyArray<BusUser> = ordered.map(({ node, module }) => ({
    publish: parts.get(module)!.publish,
    subscribe: withSorted(parts.get(module)!.subscribe, `$KV.memberships.${membershipKey(node, module)}`),
    user: userOf(module, node),
  }))
  const text = users.length === 0 ? "" : JSON.stringify(users)
  return { ok: true, users, text, digest: text === "" ? "" : digestOf(text) }
}

/**
 * What a module's resource, membership and bus permissions are on every machine it runs on: what it
 * receives, its states, its resource's canonical JSON after the machine's own configuration, and what
 * it may publish and subscribe to. Worked out once an index rather than once an assignment (issue 41);
 * not its build, which a plan pins machine by machine. **Every module that receives contributions may
 * publish provisioner.failing and provisioner.recovered**, without any manifest listing them (seed
 * 002's header): a provider cannot forget to ask for the right to say it fails.
 */
const modulePartsOf = (m: ModuleRecord, consumersOf: ReadonlyMap<string, ReadonlyArray<string>>) => {
  const receives = Object.fromEntries(list(m.receives).map((req) => [req, consumersOf.get(req) ?? []]))
  const standing = list(m.receives).length > 0 ? [EventFailing, EventRecovered] : []
  const kvStates = list(m.states).map((s) => `$KV.${s}.>`)
  return {
    receives,
    states: sortedUnique(list(m.states)),
    after: `,"module":${JSON.stringify(m.name)},"receives":${canonicalJson(receives)}}`,
    publish: sortedUnique([...list(m.publishes), ...standing, ...kvStates]),
    subscribe: sortedUnique([...list(m.subscribes), ...kvStates]),
  }
}
type ModuleParts = ReturnType<typeof modulePartsOf>

/**
 * The records indexed once a push: modules by name, assignments by machine, the consumers of each
 * requirement, the requirements provided, who holds each seat, the machine holding the bus (when a
 * module claiming the bus seat is assigned), and the user list with its canonical text and that
 * text's digest, or why it cannot be worked out.
 */
export const indexRecords = (records: MeshRecords) => {
  const modules = new Map(records.modules.map((m) => [m.name, m]))
  const byNode = Map.groupBy(records.assignments, (a) => a.node)
  const consumersOf = new Map<string, Array<string>>()
  const providers = new Set<string>()
  const seatHolders = new Map<string, string>()
  // Walked in the order of the users' names, each requirement's consumers come sorted.
  const ordered = inUserOrder(records.assignments, byNode)
  for (const a of ordered) {
    const m = modules.get(a.module)
    if (m === undefined) continue
    for (const req of list(m.requires)) {
      const c = consumersOf.get(req)
      if (c === undefined) consumersOf.set(req, [userOf(m.name, a.node)])
      else c.push(userOf(m.name, a.node))
    }
    for (const req of list(m.receives)) providers.add(req)
  }
  const parts = new Map([...modules.values()].map((m) => [m.name, modulePartsOf(m, consumersOf)]))
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
    const on = h.node !== undefined && (byNode.get(h.node) ?? []).some((a) => a.module === h.module)
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
    parts,
    providers,
    seatHolders,
    holder: busModule !== undefined && modules.get(busModule)?.busUsers === true ? seatHolders.get(busSeat) : undefined,
    userList: userListOf(records, ordered, parts),
  }
}
export type Index = ReturnType<typeof indexRecords>

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

/**
 * A machine's declaration composed but for its sequence, which is the last of its canonical keys:
 * measured against the bus's limit and then numbered without being composed again (issue 41).
 */
export type Draft =
  | (Omit<Extract<Composition, { ok: true }>, "declaration" | "body" | "digest"> & {
      readonly declaration: Omit<Declaration, "sequence">
      /** The canonical body up to its sequence: `{…,"sequence":`. */
      readonly head: string
    })
  | { readonly ok: false; readonly why: string }

/** What one machine should be, but for the sequence it will be allotted. */
export const draft = (index: Index, node: string): Draft => {
  const assigned = [...(index.byNode.get(node) ?? [])].sort((a, b) => byText(a.module, b.module))
  const resources: Array<Resource> = []
  const resourcesJson: Array<string> = []
  const memberships: Array<Membership> = []
  const builds: Record<string, string> = {}
  const unheld: Array<string> = []
  for (const a of assigned) {
    const m = index.modules.get(a.module)
    if (m === undefined) return { ok: false, why: `${a.module} is assigned here but no such module is registered` }
    for (const req of list(m.requires))
      if (!index.providers.has(req))
        return { ok: false, why: `${m.name} requires ${req}, and no module assigned anywhere provides it` }
    for (const seat of list(m.needsSeats))
      if (!index.seatHolders.has(seat))
        unheld.push(`${m.name} needs the ${seat} seat, and no module assigned anywhere holds it`)
    const { receives, states, after } = index.parts.get(m.name)!
    const config = configOf(a)
    resources.push({ module: m.name, build: m.build, config, receives })
    resourcesJson.push(`{"build":${JSON.stringify(m.build)},"config":${canonicalJson(config)}${after}`)
    memberships.push({ mesh: index.records.mesh, node, module: m.name, receives, states })
    builds[m.name] = m.build
  }
  const declaration = { mesh: index.records.mesh, node, resources }
  // Its canonical JSON written in its keys' sorted order, only what a person gave (a configuration)
  // sorted by canonicalJson; the holder's user list spliced in as the index spelled it. Joined into
  // one flat string: a head kept as the chain of its pieces holds more than its text, for every
  // machine until the push ends (issue 41).
  const rest = `"mesh":${JSON.stringify(declaration.mesh)},"node":${JSON.stringify(node)},"resources":[`
  const userList = node === index.holder ? index.userList : undefined
  if (userList?.ok === false) return { ok: false, why: `the bus's user list cannot be worked out: ${userList.why}` }
  const carried = userList !== undefined && userList.text !== "" ? userList : undefined
  const opening = carried === undefined ? "{" : `{"busUsers":${carried.text},`
  return {
    ok: true,
    builds,
    memberships,
    unheld,
    declaration: carried === undefined ? declaration : { ...declaration, busUsers: carried.users },
    head: [opening, rest, resourcesJson.join(","), '],"sequence":'].join(""),
    busUsersDigest: carried?.digest,
  }
}

/** A draft numbered: its body is the canonical JSON of its declaration under that sequence. */
export const sequenced = (d: Draft, sequence: number): Composition => {
  if (!d.ok) return d
  const { head, ...rest } = d
  const body = `${head}${JSON.stringify(sequence)}}`
  return { ...rest, declaration: { ...d.declaration, sequence }, body, digest: digestOf(body) }
}

/** What one machine should be, under the sequence it was allotted. */
export const compose = (index: Index, node: string, sequence: number): Composition =>
  sequenced(draft(index, node), sequence)

/** One machine ready to be sent. */
export interface Ready {
  readonly node: string
  readonly composition: Extract<Composition, { ok: true }>
}

/** Each machine's draft, from the records' index or each machine's own (held.ts indexFor). */
export const draftAll = (index: Index | ((node: string) => Index), names: ReadonlyArray<string>) =>
  new Map(names.map((n) => [n, draft(typeof index === "function" ? index(n) : index, n)]))

type Sequences = ReadonlyMap<string, number | { readonly error: string }>

/**
 * Numbers every machine asked with the sequence it was allotted before composing began; what cannot
 * be worked out (or was allotted no sequence) is a refusal naming the machine, and the others are
 * still sent. A machine that owns nothing is sent its empty declaration (issue 127): skipping it
 * would leave what it last held in force for ever.
 */
export const sequenceEach = (
  drafts: ReadonlyMap<string, Draft>,
  names: ReadonlyArray<string>,
  sequences: Sequences,
) => {
  const sending: Array<Ready> = []
  const refusals: Array<string> = []
  const said: Array<string> = []
  for (const node of names) {
    const seq = sequences.get(node)
    if (seq === undefined || typeof seq !== "number") {
      refusals.push(`${node}:\n${seq === undefined ? "no sequence was allotted" : seq.error}`)
      continue
    }
    const c = sequenced(drafts.get(node)!, seq)
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
 * other end has never heard of. A machine a plan leaves out counts as not resolved, since the
 * machines that must agree would not.
 */
export const composeAllOrNothing = (
  drafts: ReadonlyMap<string, Draft>,
  names: ReadonlyArray<string>,
  sequences: Sequences,
  left: ReadonlyMap<string, string> = new Map(),
) => {
  const sendable = names.filter((n) => !left.has(n))
  const each = sequenceEach(drafts, sendable, sequences)
  const refusals = [...names.flatMap((n) => (left.has(n) ? [`${n}:\n${left.get(n)}`] : [])), ...each.refusals]
  if (refusals.length === 0) return { sending: each.sending, refused: undefined, said: each.said }
  return {
    sending: [],
    said: [],
    refused: `nothing was sent. ${refusals.length} machine(s) could not be resolved:\n\n${refusals.join("\n\n")}`,
  }
}
