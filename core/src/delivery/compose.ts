// Composing each machine's declaration from the records, each machine on its own (novox/hq ADR
// 0066): a machine that cannot be worked out is that machine's problem, named, and the others are
// still sent. Everything is read from one index built once per push, so composing a push grows
// with the machines and assignments, not their product.
import { canonicalJson } from "../json.ts"
import { EventFailing, EventRecovered } from "../provisioner/model.ts"
import { sha256Hex } from "../sha256.ts"
import type { MembershipRecord } from "./questions.ts"
import { type Assignment, busSeat, configOf, type MeshRecords, type ModuleRecord } from "../mesh/records.ts"

export type Membership = typeof MembershipRecord.Type

/** What the mesh compares: the digest of the bytes sent, never of something derived beside them. */
export const digestOf = (body: string): string => sha256Hex(body)

const list = (names: ReadonlyArray<string> | undefined): ReadonlyArray<string> => names ?? []
const sortedUnique = (names: Iterable<string>): Array<string> => [...new Set(names)].sort()
const userOf = (module: string, node: string) => `${module}@${node}`

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The assignments in the order of their users' names (`module@node`), as sorting the names would
 * give it, without sorting them: a sort of 300,000 names, for the user list and again for a
 * requirement's consumers, grows faster than the mesh (issue 41). Modules in the order
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
 * The bus's user list, in its canonical spelling: a user per assignment, its module's permissions
 * with its own membership in its sorted place among the module's subscriptions. Written from each
 * module's pieces, spelled once an index, without an object or a list made for each of 300,000
 * users, which a push would keep until its last act (issue 41).
 */
const userListOf = (
  records: MeshRecords,
  ordered: ReadonlyArray<Assignment>,
  parts: ReadonlyMap<string, ModuleParts>,
):
  | { readonly ok: true; readonly text: string; readonly digest: string }
  | { readonly ok: false; readonly why: string } => {
  const unknown = records.assignments.find((a) => !parts.has(a.module))
  if (unknown !== undefined)
    return { ok: false, why: `${unknown.module} is assigned to ${unknown.node} but no such module is registered` }
  if (ordered.length === 0) return { ok: true, text: "", digest: "" }
  // Joined a thousand users at a time: 300,000 users' texts alive together until one join would be
  // copied and promoted by the collector, where a thousand die young (issue 41).
  const joined: Array<string> = []
  for (let at = 0; at < ordered.length; at += 1000)
    joined.push(
      ordered
        .slice(at, at + 1000)
        .map((a) => parts.get(a.module)!.userJson(a.node))
        .join(","),
    )
  const text = `[${joined.join(",")}]`
  return { ok: true, text, digest: digestOf(text) }
}

/**
 * One user's canonical JSON for a module's users: its keys in sorted order, the machine's membership
 * subject in its sorted place among the module's subscriptions, each spelled once a module.
 */
const userJsonOf = (module: string, publish: ReadonlyArray<string>, subscribe: ReadonlyArray<string>) => {
  const opening = `{"publish":${JSON.stringify(publish)},"subscribe":[`
  const quoted = subscribe.map((s) => JSON.stringify(s))
  // What comes before and after the machine's own subject at each place it can sort to, joined once
  // a module rather than once a user: a push of 100,000 machines spells 300,000 users (issue 41).
  const places = Array.from({ length: quoted.length + 1 }, (_, at) => at)
  const before = places.map((at) => quoted.slice(0, at).join(",") + (at === 0 ? "" : ","))
  const after = places.map((at) => (at === quoted.length ? "" : ",") + quoted.slice(at).join(","))
  return (node: string): string => {
    const own = `$KV.memberships.${membershipKey(node, module)}`
    const at = places.find((k) => k === subscribe.length || subscribe[k]! >= own)!
    // A subject already among the subscriptions stands once: what comes after it follows.
    const list = `${before[at]}${JSON.stringify(own)}${after[subscribe[at] === own ? at + 1 : at]}`
    return `${opening}${list}],"user":${JSON.stringify(userOf(module, node))}}`
  }
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
    userJson: userJsonOf(
      m.name,
      sortedUnique([...list(m.publishes), ...standing, ...kvStates]),
      sortedUnique([...list(m.subscribes), ...kvStates]),
    ),
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
    const user = userOf(m.name, a.node)
    for (const req of list(m.requires)) consumersOf.get(req)?.push(user) ?? consumersOf.set(req, [user])
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

/**
 * A machine's declaration as it is sent: its canonical JSON (`body`: busUsers on the holder, mesh,
 * node, resources, sequence; what tests read back with JSON.parse) and what the push needs of it
 * beside, not the declaration kept again as objects, which a push of 100,000 machines would hold
 * until its last act (issue 41).
 */
export type Composition =
  | {
      readonly ok: true
      readonly sequence: number
      /** How many resources it declares: none, and it is sent so the machine drops what it last held. */
      readonly resourceCount: number
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
  | (Omit<Extract<Composition, { ok: true }>, "sequence" | "body" | "digest"> & {
      /** The canonical body up to its sequence: `{…,"sequence":`. */
      readonly head: string
    })
  | { readonly ok: false; readonly why: string }

/** What one machine should be, but for the sequence it will be allotted. */
export const draft = (index: Index, node: string): Draft => {
  const assigned = [...(index.byNode.get(node) ?? [])].sort((a, b) => byText(a.module, b.module))
  const resourcesJson: Array<string> = []
  // Made its length, not grown by pushing: a grown array keeps room for 17, and a push keeps each
  // machine's until its last act (issue 41).
  const memberships = new Array<Membership>(assigned.length)
  const builds: Record<string, string> = {}
  const unheld: Array<string> = []
  const mesh = index.records.mesh
  for (const [i, a] of assigned.entries()) {
    const m = index.modules.get(a.module)
    if (m === undefined) return { ok: false, why: `${a.module} is assigned here but no such module is registered` }
    const unprovided = list(m.requires).find((req) => !index.providers.has(req))
    if (unprovided !== undefined)
      return { ok: false, why: `${m.name} requires ${unprovided}, and no module assigned anywhere provides it` }
    for (const seat of list(m.needsSeats).filter((seat) => !index.seatHolders.has(seat)))
      unheld.push(`${m.name} needs the ${seat} seat, and no module assigned anywhere holds it`)
    const { receives, states, after } = index.parts.get(m.name)!
    resourcesJson.push(`{"build":${JSON.stringify(m.build)},"config":${canonicalJson(configOf(a))}${after}`)
    memberships[i] = { mesh, node, module: m.name, receives, states }
    builds[m.name] = m.build
  }
  // Its canonical JSON written in its keys' sorted order, only what a person gave (a configuration)
  // sorted by canonicalJson; the holder's user list spliced in as the index spelled it. Left as the
  // chain of its pieces, not joined: a draft lives only as long as the thousand numbered with it
  // (deliver.ts), and the holder's, tens of megabytes at 100,000 machines, is copied once, into its
  // body, not first into its head (issue 41).
  const rest = `"mesh":${JSON.stringify(mesh)},"node":${JSON.stringify(node)},"resources":[`
  const userList = node === index.holder ? index.userList : undefined
  if (userList?.ok === false) return { ok: false, why: `the bus's user list cannot be worked out: ${userList.why}` }
  const carried = userList !== undefined && userList.text !== "" ? userList : undefined
  const opening = carried === undefined ? "{" : `{"busUsers":${carried.text},`
  return {
    ok: true,
    resourceCount: assigned.length,
    builds,
    memberships,
    unheld,
    head: `${opening}${rest}${resourcesJson.join(",")}],"sequence":`,
    busUsersDigest: carried?.digest,
  }
}

/** A draft numbered: its body is the canonical JSON of its declaration under that sequence. */
export const sequenced = (d: Draft, sequence: number): Composition => {
  if (!d.ok) return d
  const body = `${d.head}${JSON.stringify(sequence)}}`
  const digest = digestOf(body)
  // Spelled out, not spread from the draft: a spread object keeps its last keys in a table beside
  // it, 64 bytes a machine until the push's last act (issue 41).
  const { resourceCount, builds, busUsersDigest, memberships, unheld } = d
  return { ok: true, sequence, resourceCount, body, digest, builds, busUsersDigest, memberships, unheld }
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
    if (c.resourceCount === 0) said.push(`${node} owns nothing now — sent so it drops what it last held`)
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
  if (refusals.length === 0) return { ...each, refused: undefined }
  const refused = `nothing was sent. ${refusals.length} machine(s) could not be resolved:\n\n${refusals.join("\n\n")}`
  return { sending: [], said: [], refused }
}
