// What the soak counts and reads back at the end (issue 43: 20 minutes held every invariant, and no
// invariant said whether anything had happened): every word the stream kept, in the stream's order;
// every process's exit, accounted for; every file the soak and its servers wrote, for the secret scan.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { jetstream } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import type { Running } from "../support/servers.ts"

export interface KeptWord {
  readonly subject: string
  readonly consumer: string
  readonly attempts: number
  readonly provider: string
}

/** Every message the stream keeps, in its order, read by an ordered consumer. */
export const streamWords = async (nc: NatsConnection, stream: string): Promise<Array<KeptWord>> => {
  const js = jetstream(nc)
  const consumer = await js.consumers.get(stream)
  const out: Array<KeptWord> = []
  for (;;) {
    const batch = await consumer.fetch({ max_messages: 1000, expires: 2_000 })
    let n = 0
    for await (const m of batch) {
      n += 1
      const body = JSON.parse(m.string()) as Record<string, unknown>
      out.push({
        subject: m.subject,
        consumer: String(body["consumer"]),
        attempts: Number(body["attempts"]),
        provider: String(body["provider"]),
      })
    }
    if (n === 0) return out
  }
}

/**
 * No word lost, over every key, in order: every word the bus acknowledged is kept, and each key's
 * words are kept in the order they were said (their attempts only grow). The problems, first few.
 */
export const wordsLost = (
  acknowledged: ReadonlyMap<string, ReadonlyArray<number>>,
  kept: ReadonlyArray<KeptWord>,
): { readonly checked: number; readonly problems: ReadonlyArray<string> } => {
  const byKey = new Map<string, Array<number>>()
  for (const w of kept) byKey.set(w.consumer, [...(byKey.get(w.consumer) ?? []), w.attempts])
  const problems: Array<string> = []
  let checked = 0
  for (const [key, acked] of acknowledged) {
    const inStream = byKey.get(key) ?? []
    const there = new Set(inStream)
    for (const a of acked) {
      checked += 1
      if (!there.has(a)) problems.push(`${key}: word ${a} acknowledged, not kept`)
    }
    const back = inStream.findIndex((a, i) => i > 0 && a <= inStream[i - 1]!)
    if (back > 0) problems.push(`${key}: word ${inStream[back]} kept after ${inStream[back - 1]}`)
  }
  return { checked, problems }
}

/** Every process the soak started, and how each ended: by the nemesis, by the soak's SIGTERM, or by itself. */
export const exits = () => {
  const killed = new Set<Running>()
  return {
    /** The nemesis ends it (kill -9): its exit is accounted for. */
    kill: (r: Running) => {
      killed.add(r)
      if (r.process.exitCode === null && r.process.signalCode === null) r.process.kill("SIGKILL")
    },
    /**
     * The processes still running stopped by SIGTERM, each expected to exit 0 within its stop; the
     * rest must have been killed by the nemesis. What ended otherwise, said with its last words.
     */
    account: async (all: ReadonlyArray<Running>) => {
      const unaccounted: Array<string> = []
      let stopped = 0
      for (const r of all) {
        const name = r.process.spawnargs.slice(2, 4).join(" ")
        const ended = r.process.exitCode !== null || r.process.signalCode !== null
        if (ended) {
          if (!killed.has(r))
            unaccounted.push(
              `${name} (pid ${r.process.pid}) ended by itself: ${r.process.exitCode ?? r.process.signalCode}; ${r.output().trim().split("\n").slice(-2).join(" / ")}`,
            )
          continue
        }
        await r.stop()
        stopped += 1
        if (r.process.exitCode !== 0)
          unaccounted.push(
            `${name} (pid ${r.process.pid}) stopped by SIGTERM: exit ${r.process.exitCode ?? r.process.signalCode}`,
          )
      }
      return { started: all.length, killed: killed.size, stopped, unaccounted }
    },
  }
}

/** Every file under `dir`, its bytes as text (a secret is ASCII: found in a binary file's bytes as well). */
export const everyFile = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    let names: Array<string>
    try {
      names = readdirSync(d)
    } catch {
      return
    }
    for (const n of names) {
      const p = join(d, n)
      try {
        const s = statSync(p)
        if (s.isDirectory()) walk(p)
        else if (s.isFile()) out[p] = readFileSync(p).toString("latin1")
      } catch {
        /* gone meanwhile */
      }
    }
  }
  walk(dir)
  return out
}
