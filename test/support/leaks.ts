// The search every fault test makes of what it captured (issue 14): every password in use, in every
// spelling a program could give it away in, in every byte written (a program's output, bus messages
// with their headers, store rows, files), and the captures themselves.
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import type postgres from "postgres"
import { natsConnectOptions } from "../../shells/src/bus-credentials.ts"
import { goPathEscape, goQueryEscape } from "@mesh-core/core/provisioner/scrub"

/** Every way a password may be spelled in what a program wrote: raw, URL query and path, JSON, base64, hex. */
const leakForms = (password: string): ReadonlyArray<string> => {
  const bytes = Buffer.from(password, "utf8")
  return [
    ...new Set([
      password,
      goQueryEscape(password),
      goPathEscape(password),
      encodeURIComponent(password),
      JSON.stringify(password).slice(1, -1),
      bytes.toString("base64").replace(/=+$/, ""),
      bytes.toString("hex"),
      bytes.toString("hex").toUpperCase(),
    ]),
  ]
}

/**
 * The places a password was found in `haystacks`, in every form of `leakForms`. A password shorter
 * than 8 characters (`e`) is in every text as a letter, so for it what is searched for is how a
 * program would give it away: a mask inside a word (`auth***ntication`), or the password as a URL's
 * userinfo or a quoted JSON value.
 */
export const leaksOf = (passwords: ReadonlyArray<string>, haystacks: Record<string, string>): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const pw of passwords) {
    const forms = [...pw].length >= 8 ? leakForms(pw) : leakForms(pw).flatMap((f) => [`:${f}@`, `"${f}"`])
    for (const form of forms) {
      for (const [where, text] of Object.entries(haystacks))
        if (text.includes(form)) found.push(`${JSON.stringify(form)} (of ${JSON.stringify(pw)}) in ${where}`)
    }
  }
  for (const [where, text] of Object.entries(haystacks)) {
    const m = /[A-Za-z]\*\*\*|\*\*\*[A-Za-z]/.exec(text)
    if (m !== null)
      found.push(
        `a mask inside a word (${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}) in ${where}`,
      )
  }
  return found
}

/** Every message on a bus while the tap runs, whatever its subject, with its headers; it rides out restarts. */
export const tapBus = async (url: string) => {
  const nc = await connect({ ...natsConnectOptions(url), maxReconnectAttempts: -1, reconnectTimeWait: 250 })
  const seen: Array<string> = []
  const sub = nc.subscribe(">")
  void (async () => {
    for await (const m of sub) seen.push(`${m.subject} ${m.string()} ${m.headers?.toString() ?? ""}`)
  })()
  return { seen, close: () => nc.close().catch(() => undefined) }
}

export interface StoredWord {
  readonly seq: number
  readonly subject: string
  readonly id: string | undefined
  readonly at: string | undefined
  readonly body: string
  readonly text: string
}

/** Every message a stream keeps, by its sequence, with its `Nats-Msg-Id` and `Mesh-At`. */
export const streamWords = async (url: string, stream: string): Promise<ReadonlyArray<StoredWord>> => {
  const nc = await connect({ ...natsConnectOptions(url), timeout: 2_000 })
  try {
    const jsm = await jetstreamManager(nc)
    const info = await jsm.streams.info(stream)
    const out: Array<StoredWord> = []
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null)
      if (m === null) continue
      const body = m.string()
      out.push({
        seq,
        subject: m.subject,
        id: m.header.get("Nats-Msg-Id") || undefined,
        at: m.header.get("Mesh-At") || undefined,
        body,
        text: `${m.subject} ${body} ${m.header.toString()}`,
      })
    }
    return out
  } finally {
    await nc.close()
  }
}

/** Every row of every table in a schema, as text. */
export const rowsOf = async (sql: postgres.Sql, schema: string): Promise<string> => {
  const tables = await sql`select table_name from information_schema.tables where table_schema = ${schema}`
  const out: Array<string> = []
  for (const t of tables) {
    const rows = await sql`select * from ${sql(schema)}.${sql(String(t["table_name"]))}`
    out.push(`${t["table_name"]}: ${JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`)
  }
  return out.join("\n")
}
