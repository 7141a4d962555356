// Is this controller alive, and is it ready (issue 10: `/healthz` and `/readyz`, as controller-runtime
// and Argo answer them)? Ready means it holds the controller lease and the store and the bus have
// answered lately: a load balancer or a person paging asks which controller is acting, and the answer
// must be "this one" only when its acts can land. Alive means its loops still turn: a loop that
// stopped turning (a hung read, a fiber dead) is what a restart mends. The shell gathers the facts
// through probes; the decision and the words are here.
import { formatDuration } from "../duration.ts"

export interface ReadinessFacts {
  /** Whether this controller holds the lease now, and who does when another is known to. */
  readonly lease: {
    readonly held: boolean
    readonly holder?: string | undefined
    /** The followers of its term that have not caught up with the bus yet, while it holds the lease. */
    readonly catchingUp?: ReadonlyArray<string> | undefined
  }
  /** When the store last answered a probe (epoch ms), and why the last probe failed, if it did. */
  readonly store: Answered
  readonly bus: Answered
  readonly now: number
  /** How recent an answer must be to count (ms). */
  readonly within: number
  /** What a person should know that does not stop it acting (a recording that stopped). */
  readonly notes?: ReadonlyArray<string>
}

export interface Answered {
  readonly at: number | undefined
  readonly why?: string | undefined
}

export interface Verdict {
  readonly ok: boolean
  readonly reasons: ReadonlyArray<string>
  /** What a person should know that does not stop it acting (a recording that stopped). */
  readonly notes?: ReadonlyArray<string>
}

/**
 * A recording that could not be written (issue 27: a full disk under `--record` tore the log
 * mid-line and said nothing). The controller decides on; the log ends at its last whole line.
 */
export const recordingStopped = (file: string, why: string, who: "controller" | "provider" = "controller"): string =>
  `the recording in ${file} stopped: ${why}; it ends at its last whole line, and the ${who} decides on without recording`

const answeredLately = (what: string, a: Answered, { now, within }: ReadinessFacts): ReadonlyArray<string> => {
  const why = a.why === undefined || a.why === "" ? "" : `: ${a.why}`
  if (a.at === undefined) return [`the ${what} has not answered${why}`]
  const ago = now - a.at
  if (ago > within)
    return [`the ${what} last answered ${formatDuration(ago)} ago (more than ${formatDuration(within)})${why}`]
  return []
}

/**
 * The followers of a term that have not caught up yet: a holder is ready only once this is empty (its
 * lease record then says ready, and /readyz does).
 */
export const caughtUpWith = (expected: ReadonlyArray<string>, caught: ReadonlySet<string>): ReadonlyArray<string> =>
  expected.filter((loop) => !caught.has(loop))

/**
 * Ready only while this controller holds the lease, its followers have caught up, and the store and
 * the bus answered within `within`.
 */
export const readiness = (f: ReadinessFacts): Verdict => {
  const holder = f.lease.holder ? ` (${f.lease.holder} holds it)` : ""
  const catchingUp = f.lease.catchingUp ?? []
  const lease = !f.lease.held
    ? [`this controller does not hold the controller lease${holder}`]
    : catchingUp.length > 0
      ? [`this controller holds the controller lease and has not caught up with the bus yet: ${catchingUp.join(", ")}`]
      : []
  const reasons = [...lease, ...answeredLately("store", f.store, f), ...answeredLately("bus", f.bus, f)]
  return { ok: reasons.length === 0, reasons, ...((f.notes ?? []).length === 0 ? {} : { notes: f.notes }) }
}

export interface LivenessFacts {
  /** When each loop last finished a pass (epoch ms). A loop that has not finished one yet is not listed. */
  readonly beats: Readonly<Record<string, number>>
  readonly now: number
  /** How long a loop may go without finishing a pass before the process counts as stuck (ms). */
  readonly stallAfter: number
}

/** Alive while every loop that has turned turned again within `stallAfter`. */
export const liveness = (f: LivenessFacts): Verdict => {
  const reasons = Object.entries(f.beats)
    .filter(([, at]) => f.now - at > f.stallAfter)
    .map(
      ([loop, at]) =>
        `the ${loop} loop has not finished a pass for ${formatDuration(f.now - at)} (more than ${formatDuration(f.stallAfter)})`,
    )
  return { ok: reasons.length === 0, reasons }
}

/** What `/healthz` and `/readyz` answer: the status and a short plain-text body, one reason a line. */
export const probeAnswer = (
  v: Verdict,
  okWord: "alive" | "ready",
): { readonly status: 200 | 503; readonly body: string } =>
  v.ok
    ? { status: 200, body: `${okWord}\n${notesOf(v)}` }
    : { status: 503, body: `not ${okWord}:\n${v.reasons.map((r) => `- ${r}\n`).join("")}${notesOf(v)}` }

const notesOf = (v: Verdict): string => (v.notes ?? []).map((n) => `note: ${n}\n`).join("")
