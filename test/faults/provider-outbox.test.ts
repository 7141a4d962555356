// Issue 14: the provider's outbox survives its own death. The shipped `provide postgres` announces
// its consumers failing (its backend is a port nobody listens on), the bus is killed (-9), one
// consumer is withdrawn, so a `withdrawn` recovered is owed while the bus is down; the provider is
// killed (-9), the bus started again, the provider started again: the word reaches the stream
// exactly once, and a controller's `status` sees the consumer cleared. A word resent after it had
// landed (a kill between the acknowledgement and its `taken` line) is dropped by its message id.
// Nothing written anywhere spells a password. Private nats-server with a user and password; the
// controller's store is the shared PostgreSQL in a schema of the test's own.
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { Effect, Fiber, Layer } from "effect"
import { ControllerLease } from "../../shells/src/lease/service.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { owe, readOutbox } from "@mesh-core/core/provisioner/outbox"
import * as Bus from "../../shells/src/bus/nats.ts"
import { busNames } from "../../shells/src/bus/subjects.ts"
import { followStandings } from "../../shells/src/controller/follow.ts"
import * as Journal from "../../shells/src/journal.ts"
import * as Store from "../../shells/src/store/postgres.ts"
import { leaksOf, rowsOf, type StoredWord, streamWords, tapBus } from "../support/leaks.ts"
import { providerFiles } from "../support/private-provider.ts"
import { freePort, type PrivateNats, startPrivateNats } from "../support/private-servers.ts"
import {
  databaseUrl,
  eventually,
  requirePostgres,
  runCli,
  type Running,
  startCli,
  uniqueNames,
  dropSchemas,
} from "../support/servers.ts"

const natsPassword = "outbox-nats-pw-5173"
const adminPassword = "outbox-admin-pw-2281"
const passwords: Record<string, string> = {
  letta: "outbox-letta-pw-0001",
  ada: "outbox-ada-pw-0002",
  bo: "outbox-bo-pw-00003",
}
const owner = { resource: "postgres", node: "hq-2" }

let nats: PrivateNats
const { prefix, schema } = uniqueNames("outbox")
const names = busNames(prefix)
beforeAll(async () => {
  nats = await startPrivateNats({ user: "mesh", password: natsPassword })
  // The stream as a controller asserts it, over a connection of the test's own.
  const nc = await nats.connect()
  await Effect.runPromise(
    Bus.assertStream(names).pipe(
      Effect.provideService(Bus.Bus, {
        url: nats.url,
        nc,
        js: jetstream(nc),
        jsm: await jetstreamManager(nc),
        replicas: 1,
      }),
    ),
  )
  await nc.close()
}, 30_000)
afterAll(async () => {
  nats?.stop()
  await dropSchemas([schema])
})

const killed = (r: Running) =>
  new Promise<void>((resolve) => {
    if (r.process.exitCode !== null || r.process.signalCode !== null) return resolve()
    r.process.once("exit", () => resolve())
    r.process.kill("SIGKILL")
  })

describe("a provider killed while the bus is down", () => {
  it("sends the withdrawn word it owed when started again, exactly once, and status sees the consumer cleared", async () => {
    const files = providerFiles(passwords)
    const outboxFile = `${files.dir}/outbox`
    const unreachable = `postgres://mesh_admin:${adminPassword}@127.0.0.1:${await freePort()}/postgres`
    const runs: Array<Running> = []
    const provider = () => {
      const r = startCli(
        [
          "provide",
          "postgres",
          "--receives",
          files.receives,
          "--node",
          owner.node,
          "--outbox",
          outboxFile,
          "--set",
          "every=250ms",
          "--set",
          "verifyEvery=250ms",
          "--set",
          "holdsTimeout=1s",
          "--set",
          "failingAfter=2s",
          "--set",
          "sayAgainEvery=1h",
        ],
        { PROVIDER_ADMIN_URL: unreachable, NATS_URL: nats.url, MESH_BUS_PREFIX: prefix },
      )
      runs.push(r)
      return r
    }
    const output = () => runs.map((r, i) => `--- provider run ${i + 1}\n${r.output()}`).join("\n")
    const tap = await tapBus(nats.url)
    try {
      const first = provider()
      await eventually(
        "all three announced failing",
        async () => {
          const ws = await streamWords(nats.url, names.stream)
          return new Set(ws.filter((w) => w.subject === names.failing).map((w) => JSON.parse(w.body).consumer)).size ===
            3
            ? true
            : undefined
        },
        30_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${output()}`)
      })

      await nats.kill()
      files.write(["ada", "bo"]) // one of three withdrawn: not a mass withdrawal
      const owedOnDisk = await eventually(
        "the withdrawn word owed in the outbox file",
        () => {
          const r = readOutbox(readFileSync(outboxFile, "utf8"), owner)
          if (!r.ok) throw new Error(`${r.line}: ${r.problem}`)
          return r.outbox.owed.find(
            (o) =>
              o.word.event === "provisioner.recovered" &&
              o.word.body.why === "withdrawn" &&
              o.word.body.consumer === "letta",
          )
        },
        15_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${output()}`)
      })
      await killed(first)
      await nats.start()

      const second = provider()
      const withdrawn = (ws: ReadonlyArray<StoredWord>) =>
        ws.filter(
          (w) =>
            w.subject === names.recovered &&
            JSON.parse(w.body).why === "withdrawn" &&
            JSON.parse(w.body).consumer === "letta",
        )
      await eventually(
        "the withdrawn word on the stream",
        async () => (withdrawn(await streamWords(nats.url, names.stream)).length > 0 ? true : undefined),
        20_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${output()}`)
      })
      expect(second.output()).toContain("1 word owed to the bus from before the last stop")
      await eventually(
        "the outbox owes nothing",
        () => {
          const r = readOutbox(readFileSync(outboxFile, "utf8"), owner)
          return r.ok && r.outbox.owed.length === 0 ? true : undefined
        },
        10_000,
      )

      // A kill after the bus took a word but before its `taken` line: the word is owed again, and
      // the resend is dropped by the stream's duplicate window (Nats-Msg-Id).
      await killed(second)
      const again = owe({ owed: [] }, owedOnDisk.word)
      appendFileSync(outboxFile, again.file.lines.map((l) => `${l}\n`).join(""))
      const third = provider()
      await eventually(
        "the resend taken",
        () => {
          const r = readOutbox(readFileSync(outboxFile, "utf8"), owner)
          return third.output().includes("1 word owed") && r.ok && r.outbox.owed.length === 0 ? true : undefined
        },
        15_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${output()}`)
      })

      const words = await streamWords(nats.url, names.stream)
      expect(withdrawn(words).map((w) => w.id)).toEqual([owedOnDisk.id])
      const ids = words.map((w) => w.id)
      expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]) // no message id twice
      expect(ids.every((id) => id !== undefined)).toBe(true)

      // What a controller makes of it: letta cleared, ada and bo failing. The follower runs here over
      // a connection of the test's own, so this shows the provider's side whatever serve's state.
      const nc = await nats.connect()
      const said: Array<string> = []
      const follower = Effect.runFork(
        followStandings({ names, batch: 100 }).pipe(
          Effect.provide(
            Layer.mergeAll(
              Layer.succeed(Bus.Bus, {
                url: nats.url,
                nc,
                js: jetstream(nc),
                jsm: await jetstreamManager(nc),
                replicas: 1,
              }),
              Store.layerMigrated(databaseUrl, schema),
              Journal.memoryLayer(said),
              ControllerLease.layerTest(1),
            ),
          ),
        ),
      )
      const env = { DATABASE_URL: databaseUrl, MESH_STORE_SCHEMA: schema }
      // Waited on with async queries: a spawnSync'd status in a loop would starve the follower,
      // which runs in this process, on a loaded machine.
      const probe = await requirePostgres()
      await eventually(
        "the store keeps ada and bo failing, letta cleared",
        async () => {
          const rows =
            await probe`select consumer from ${probe(schema)}.standings where state = 'failing' order by consumer`.catch(
              () => [],
            )
          return rows.map((r) => r["consumer"]).join() === "ada,bo" ? true : undefined
        },
        40_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${said.join("\n")}`)
      })
      await probe.end()
      const status = await eventually(
        "status sees ada and bo failing, letta cleared",
        () => {
          const r = runCli(["status", "--json"], env)
          const json = r.out === "" ? undefined : JSON.parse(r.out)
          const failing = (json?.failing ?? []).map((f: { consumer: string }) => f.consumer).sort()
          return r.code === 1 && failing.join() === "ada,bo" ? json : undefined
        },
        20_000,
      ).catch((e) => {
        throw new Error(`${e.message}\n${said.join("\n")}`)
      })
      expect(status.well).toBe(false)
      expect(third.process.exitCode).toBeNull()
      await Effect.runPromise(Fiber.interrupt(follower))
      await nc.close()

      await third.stop()
      const sql = await requirePostgres()
      const rows = await rowsOf(sql, schema)
      await sql.end()
      const found = leaksOf([natsPassword, adminPassword, ...Object.values(passwords)], {
        provider: output(),
        journal: said.join("\n"),
        "bus (live)": tap.seen.join("\n"),
        "bus (stream)": words.map((w) => w.text).join("\n"),
        store: rows,
        outbox: existsSync(outboxFile) ? readFileSync(outboxFile, "utf8") : "",
      })
      console.log(
        `outbox: 2 kills of the provider and 1 of the bus survived, ${withdrawn(words).length} withdrawn word on the stream (owed 1), ${words.length} words searched, ${found.length} secrets found`,
      )
      expect(found).toEqual([])
    } finally {
      for (const r of runs) await killed(r)
      await tap.close()
      files.remove()
    }
  }, 180_000)
})
