// What the bus must hold before anything is granted on it (seeds 002 and 004, raiseTheBus; issue 28):
// asserted on every start, and said. The mesh's objects are the controller's alone to make, so a mesh
// that came up without them is one where machines connect and hear nothing; said rather than silent,
// because a log that is quiet on success and loud on failure reads as broken when it is working.
//
// From the catalogue (every module registered, assigned anywhere or not): each state a module keeps
// has its bucket from registration, so a module may watch one before its owner runs anywhere (novox/hq
// ADR 0201), and each log a module keeps has its stream (ADR 0297). A bucket or log the bus holds
// that nothing declares any more is said and kept: what it holds is data, and removing it is a
// person's act.
import type { MeshRecords } from "../mesh/records.ts"

/**
 * Each name once, in order: what the catalogue's modules declare of one kind, which the bus must hold
 * (a bucket for each state, a stream for each log).
 */
export const declared = (records: MeshRecords | undefined, kind: "states" | "logs"): ReadonlyArray<string> =>
  [...new Set((records?.modules ?? []).flatMap((m) => m[kind] ?? []))].sort()

/** What the bus holds of one kind that nothing declares any more, by the bus's names: kept, and said. */
export const undeclared = (declaredNames: ReadonlyArray<string>, found: ReadonlyArray<string>) => {
  const wanted = new Set(declaredNames)
  return [...new Set(found)].filter((n) => !wanted.has(n)).sort()
}

/** The seed's sentence for what the bus holds of one kind that nothing declares, or nothing when there is none. */
export const undeclaredSaid = (kind: "states" | "logs", names: ReadonlyArray<string>): string | undefined =>
  names.length === 0
    ? undefined
    : kind === "states"
      ? `the bus holds state nothing declares any more, kept because it is data: ${names.join(", ")} — removing it is a person's act`
      : `the bus holds logs nothing declares any more, kept because they are data: ${names.join(", ")} — removing one is a person's act`

/** The one line every start says once the bus is raised (seed 004's, less the seats this mesh has no work queues for). */
export const raisedSaid = (r: {
  readonly url: string
  readonly machines: number
  readonly buckets: number
  readonly logs: number
}): string =>
  `the bus at ${r.url} has its streams, ${r.machines} machine(s) can hear a declaration, ${r.buckets} bucket(s) of state and ${r.logs} log(s)`
