// The provider's outbox on disk (issue 14): a word not yet acknowledged by the bus survives the
// provider's own death. Before, the outbox was in memory, and a `withdrawn` recovered said while the
// bus was down was lost with a `kill -9`, leaving the controller's standing "failing" for ever.
//
// The file is JSON lines, appended: a header naming the provider, then `owed` lines (a word handed
// over) and `taken` lines (a word JetStream acknowledged). What is still owed is every owed word
// without a later taken line, in the order they were said. The core decides what the file says and
// what is owed; the shell only reads, appends, renames and sends.
//
// A resend is idempotent: each word carries `Nats-Msg-Id` made of the word itself, so a word that
// had landed before the kill but whose `taken` line was never written is dropped by the stream's
// duplicate window (2 minutes); past the window, the controller's newest-word-wins keeps one row,
// since a repeated word is never newer than itself.
import { jsonOf, NotJson } from "../json.ts"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { firstIssue } from "../decoding.ts"
import { sha256Hex } from "../sha256.ts"
import { Announcement, type Provider } from "./model.ts"

const outboxFormat = "mesh-core.provider-outbox"
const outboxVersion = 1

/** The message id a word is sent with: `provider/provider-node/consumer/event/epoch-ms` (docs/bus.md). */
export const messageIdOf = (a: Announcement): string =>
  `${a.body.provider}/${a.body["provider-node"]}/${a.body.consumer}/${a.event}/${a.at}`

const Ms = Schema.Number.check(
  Schema.isInt({ message: "not a whole number of milliseconds" }),
  Schema.isBetween({ minimum: 0, maximum: 253_402_300_799_999 }, { message: "not a time from 1970 to 9999" }),
)
export const OutboxHeader = Schema.Struct({
  format: Schema.Literal(outboxFormat),
  version: Schema.Literal(outboxVersion),
  provider: Schema.String,
  "provider-node": Schema.String,
})
export type OutboxHeader = typeof OutboxHeader.Type

const owedLine = Schema.fieldsAssign({ owed: Schema.String, at: Ms })
const OwedLine = Announcement.mapMembers(([failing, recovered]) => [owedLine(failing), owedLine(recovered)] as const)
const TakenLine = Schema.Struct({ taken: Schema.String })
const OutboxLine = Schema.Union([OwedLine, TakenLine])

const decodeHeader = Schema.decodeUnknownExit(OutboxHeader)
const decodeLine = Schema.decodeUnknownExit(OutboxLine)

export interface Owed {
  readonly id: string
  readonly word: Announcement
}

/** What the outbox holds: the words owed, oldest first. */
export interface Outbox {
  readonly owed: ReadonlyArray<Owed>
}

export const emptyOutbox: Outbox = { owed: [] }

export type OutboxOwner = Pick<Provider, "resource" | "node">

export const headerOf = (owner: OutboxOwner): string =>
  JSON.stringify({
    format: outboxFormat,
    version: outboxVersion,
    provider: owner.resource,
    "provider-node": owner.node,
  } satisfies OutboxHeader)

const owedLineOf = (o: Owed): string =>
  JSON.stringify({ owed: o.id, at: o.word.at, event: o.word.event, body: o.word.body })

/** What the shell does to the file: append lines, or replace it whole (written aside, then renamed). */
export interface OutboxWrite {
  readonly write: "append" | "replace"
  readonly lines: ReadonlyArray<string>
}

/** An outbox after a change, and what the shell writes of it. */
type OutboxChange = { readonly outbox: Outbox; readonly file: OutboxWrite }

/** The file as it should be for an outbox: its header and every word owed. */
export const fileOf = (owner: OutboxOwner, outbox: Outbox): OutboxWrite => ({
  write: "replace",
  lines: [headerOf(owner), ...outbox.owed.map(owedLineOf)],
})

/** A word handed over: owed from now on, written before it is sent, so a kill after this loses nothing. */
export const owe = (outbox: Outbox, word: Announcement): OutboxChange => {
  const o = { id: messageIdOf(word), word }
  if (outbox.owed.some((x) => x.id === o.id)) return { outbox, file: { write: "append", lines: [] } }
  return { outbox: { owed: [...outbox.owed, o] }, file: { write: "append", lines: [owedLineOf(o)] } }
}

/**
 * A word JetStream acknowledged. With nothing more owed the file is replaced by its header alone, so
 * it never grows while the bus answers; otherwise a `taken` line is appended.
 */
export const taken = (outbox: Outbox, id: string, owner: OutboxOwner): OutboxChange => {
  // An id is owed once at most (owe and readOutbox keep one word per id).
  const next = { owed: outbox.owed.filter((o) => o.id !== id) }
  return {
    outbox: next,
    file: next.owed.length === 0 ? fileOf(owner, next) : { write: "append", lines: [JSON.stringify({ taken: id })] },
  }
}

export type OutboxRead =
  | { readonly ok: true; readonly outbox: Outbox; readonly tornChars: number; readonly lines: number }
  | { readonly ok: false; readonly line: number; readonly field: string; readonly problem: string }

const bad = (line: number, field: string, problem: string): OutboxRead => ({ ok: false, line, field, problem })

/**
 * Reads an outbox file's text. A last line without its newline was torn by a kill mid-write and is
 * not read (what it said is counted in `tornChars`): a torn `owed` line is a word whose writing never
 * finished, so it was never sent either; a torn `taken` line leaves its word owed, and the resend is
 * dropped as a duplicate. Any other line that cannot be read is refused with its number, never
 * skipped: skipping could lose or repeat a word without a word said. Never throws.
 */
export const readOutbox = (text: string, owner: OutboxOwner): OutboxRead => {
  const end = text.lastIndexOf("\n") + 1
  const tornChars = text.length - end
  const lines = end === 0 ? [] : text.slice(0, end - 1).split("\n")
  if (lines.length === 0) return { ok: true, outbox: emptyOutbox, tornChars, lines: 0 }
  /** Line `n` (from 0) decoded, or why it cannot be read. */
  const decoded = <A>(n: number, decode: (json: unknown) => Exit.Exit<A, Schema.SchemaError>, after = "") => {
    const json = jsonOf(lines[n]!)
    if (json instanceof NotJson) return bad(n + 1, "(line)", "not JSON")
    const e = decode(json)
    const issue = firstIssue(e)
    return Exit.isSuccess(e) ? e : bad(n + 1, issue!.field, issue!.problem + after)
  }
  const mine = `${owner.resource} on ${owner.node}`
  /** Whose the header or a word says it is, when another's. */
  const another = (w: Pick<OutboxHeader, "provider" | "provider-node">) =>
    w.provider === owner.resource && w["provider-node"] === owner.node
      ? undefined
      : `${w.provider} on ${w["provider-node"]}`
  const header = decoded(0, decodeHeader, ` (the first line must be a ${outboxFormat} header)`)
  if (!Exit.isExit(header)) return header
  const theirs = another(header.value)
  if (theirs !== undefined) return bad(1, "provider", `the outbox of ${theirs}, not of ${mine}`)
  const owed = new Map<string, Owed>()
  for (let n = 1; n < lines.length; n++) {
    if (lines[n] === "") continue
    const line = decoded(n, decodeLine)
    if (!Exit.isExit(line)) return line
    const l = line.value
    if ("taken" in l) {
      owed.delete(l.taken)
      continue
    }
    const { owed: said, ...word } = l
    const id = messageIdOf(word)
    if (id !== said)
      return bad(n + 1, "owed", `the id ${JSON.stringify(said)} is not the word's own (${JSON.stringify(id)})`)
    const whose = another(word.body)
    if (whose !== undefined) return bad(n + 1, "body.provider", `a word of ${whose} in the outbox of ${mine}`)
    // A word owed twice (said again at the same millisecond) is one word: the id is the word.
    if (!owed.has(id)) owed.set(id, { id, word })
  }
  return { ok: true, outbox: { owed: [...owed.values()] }, tornChars, lines: lines.length }
}

/** What a provider says about the outbox it found at start, if anything. */
export const outboxNote = (file: string, read: Extract<OutboxRead, { ok: true }>): string | undefined => {
  const torn =
    read.tornChars > 0
      ? `the last line of ${file} was cut short (${read.tornChars} characters, a stop mid-write); dropped`
      : undefined
  const n = read.outbox.owed.length
  const owed =
    n === 0
      ? undefined
      : `${n} word${n === 1 ? "" : "s"} owed to the bus from before the last stop (${file}); sending ${n === 1 ? "it" : "them"} first`
  const parts = [torn, owed].filter((p) => p !== undefined)
  return parts.length === 0 ? undefined : `outbox: ${parts.join("; ")}`
}

const safeName = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64)

/**
 * Where the outbox is kept when `--outbox` is not given: beside the recording (`RECORD.outbox`) when
 * there is one; otherwise in the state directory (systemd's `$STATE_DIRECTORY`, else
 * `$XDG_STATE_HOME/mesh-core`, else `~/.local/state/mesh-core`), named after the provider, its
 * machine and its contributions file, so two providers on one machine never share one.
 */
export const defaultOutboxFile = (
  where: {
    readonly record?: string | undefined
    readonly stateDirectory?: string | undefined
    readonly xdgStateHome?: string | undefined
    readonly home: string
  },
  provider: { readonly resource: string; readonly node: string; readonly receives: string },
): string => {
  if (where.record !== undefined && where.record !== "") return `${where.record}.outbox`
  const dir =
    where.stateDirectory !== undefined && where.stateDirectory !== ""
      ? where.stateDirectory.split(":")[0]!
      : where.xdgStateHome !== undefined && where.xdgStateHome !== ""
        ? `${where.xdgStateHome}/mesh-core`
        : `${where.home}/.local/state/mesh-core`
  return `${dir}/provider-${safeName(provider.resource)}-${safeName(provider.node)}-${sha256Hex(provider.receives).slice(0, 12)}.outbox`
}
