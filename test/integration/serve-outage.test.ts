// Nothing outside stops serve (issue 14): PostgreSQL stopped for 20 s under a serve whose gate judges
// every 2 s. Serve lives through it, says the outage once per worker (not once per retry), keeps the
// words said during the outage once the store is back (a word is acknowledged only once written),
// `status` exits 3 while the store cannot be read, and no password is ever said. The cluster is this
// test's own (the shared server is never stopped).
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jetstream } from "@nats-io/jetstream"
import { headers } from "@nats-io/transport-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { busNames } from "../../shells/src/bus/subjects.ts"
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-servers.ts"
import {
  cleanUp,
  eventually,
  natsUrl,
  requireNats,
  runCli,
  type Running,
  startCli,
  uniqueNames,
} from "../support/servers.ts"
import { replayRecording } from "./replay-recording.ts"
import { unreachableWord } from "../support/standing-words.ts"

const password = "outage-pw-Zq7"

let pg: PrivatePostgres
const { prefix, schema } = uniqueNames("outage")
const names = busNames(prefix)
const scratch = mkdtempSync(join(tmpdir(), "mesh-core-outage-"))
const recording = join(scratch, "day.jsonl")
const running: Array<Running> = []

beforeAll(async () => {
  await (await requireNats()).close()
  pg = await startPrivatePostgres("mesh_admin", password)
}, 60_000)

afterAll(async () => {
  for (const r of running) await r.stop()
  pg?.stop()
  await cleanUp(prefix, schema).catch(() => undefined)
  rmSync(scratch, { recursive: true, force: true })
})

const word = (i: number) => unreachableWord(`c${i}`, 3)

describe("serve through a PostgreSQL outage", () => {
  it("lives through 20 s without its store, says so once per worker, and keeps every word said meanwhile once the store is back", async () => {
    const env = {
      NATS_URL: natsUrl,
      DATABASE_URL: pg.url,
      MESH_BUS_PREFIX: prefix,
      MESH_STORE_SCHEMA: schema,
      MESH_GATE_EVERY: "2s",
    }
    const serve = startCli(["serve", "--record", recording], env)
    running.push(serve)
    await eventually(
      "serve following and judging",
      () => (serve.output().includes("following") && serve.output().includes("judging open plans") ? true : undefined),
      60_000,
    )
    const nc = await requireNats()
    const js = jetstream(nc)
    const publish = async (i: number) => {
      const h = headers()
      h.set("Mesh-At", new Date().toISOString())
      await js.publish(names.failing, JSON.stringify(word(i)), { headers: h })
    }
    const failing = () => {
      const r = runCli(["status", "--json"], env)
      return {
        code: r.code,
        count: r.out === "" ? -1 : (JSON.parse(r.out) as { failing: Array<unknown> }).failing.length,
        err: r.err,
      }
    }
    for (let i = 0; i < 5; i++) await publish(i)
    await eventually("the first five kept", () => (failing().count === 5 ? true : undefined), 60_000)

    pg.halt()
    const stoppedAt = Date.now()
    for (let i = 5; i < 15; i++) await publish(i)
    const during = failing()
    expect(during.code).toBe(3)
    expect(during.err).toContain("cannot be read")
    expect(during.err).not.toContain(password)
    await new Promise((r) => setTimeout(r, Math.max(0, 20_000 - (Date.now() - stoppedAt))))
    expect(serve.process.exitCode).toBeNull()
    pg.start()

    await eventually(
      "every word said during the outage kept",
      () => (failing().count === 15 ? true : undefined),
      90_000,
    )
    expect(serve.process.exitCode).toBeNull()
    await nc.close()
    // and each worker that said the outage says it is over. The gate reads the store only when
    // something wakes it (plans move on events, docs/gate.md): with no plan in flight it may never have
    // met the outage at all, so every worker that said it began says it ended, and no other.
    const began = () =>
      new Set(
        serve
          .output()
          .split("\n")
          .filter((l) => l.includes("cannot be read"))
          .map((l) => /^\[(\w+)\]/.exec(l)?.[1]),
      ).size
    await eventually(
      "the outage said over",
      () => {
        const over = serve.output().split("answers again").length - 1
        return over >= 1 && over >= began() ? true : undefined
      },
      30_000,
    )
    // Once-ish: the outage said by each worker that met it (the gate and the standings follower),
    // never a line per retry or per tick (a tick every 2 s for 20 s would be ten).
    const out = serve.output()
    const outageLines = out.split("\n").filter((l) => l.includes("cannot be read"))
    expect(outageLines.length, outageLines.join("\n")).toBeGreaterThanOrEqual(1)
    expect(outageLines.length, outageLines.join("\n")).toBeLessThanOrEqual(4)
    expect(out).not.toContain(password)
    expect(readFileSync(recording, "utf8")).not.toContain(password)

    await serve.stop()
    // The outage is in the recording as the core was fed it, and the day replays to the same words.
    const replayed = replayRecording(recording)
    expect(replayed.facts.filter((f) => f.fact === "store-failed").length).toBe(outageLines.length)
    expect(replayed.counts).toMatchObject({ inferred: 0, differed: 0, unasked: 0 })
  }, 240_000)
})
