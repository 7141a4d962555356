// Fencing that does not rest on an unchecked permission (issue 40; docs/lease.md "The privilege it
// needs"). A holder paused between its client's Parse/Describe and its Bind/Execute/Sync (what
// postgres.js sends for a statement with parameters not yet prepared on its connection) keeps its
// fenced transaction past every bound of its session: PostgreSQL ignores a cancel while it reads a
// command and arms its idle timeouts only after a Sync. Only a newer epoch's `pg_terminate_backend`
// ends it, which a role without `pg_signal_backend` cannot do to another role's session; such a role
// is refused at serve's start, with the grant to give. Over a PostgreSQL of the test's own.
import { spawn } from "node:child_process"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import postgres from "postgres"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fencingRole } from "../../shells/src/lease/fencing-role.ts"
import { migrate, Store } from "../../shells/src/store/postgres.ts"
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-servers.ts"
import { requireNats, runCli, uniqueNames } from "../support/servers.ts"

const schema = "mesh"
const pw = { root: "fencing-root-Qx4", a: "fencing-a-Pw8", b: "fencing-b-Zr2" }
let pg: PrivatePostgres
const urlAs = (role: string, password: string) =>
  pg.url.replace(/^postgres:\/\/[^@]+@/, `postgres://${role}:${encodeURIComponent(password)}@`)

beforeAll(async () => {
  await (await requireNats()).close()
  pg = await startPrivatePostgres("mesh_root", pw.root)
  const root = pg.sql()
  await migrate(root, schema)
  for (const [role, password] of [
    ["mesh_a", pw.a],
    ["mesh_b", pw.b],
  ] as const) {
    await root.unsafe(`create role ${role} login password '${password}'`)
    await root.unsafe(`grant usage on schema ${schema} to ${role}`)
    await root.unsafe(`grant all on all tables in schema ${schema} to ${role}`)
  }
  await root.unsafe(`grant create on database postgres to mesh_a`)
  await root.end()
}, 60_000)

afterAll(() => pg?.stop())

const refusalFor = (url: string) =>
  Effect.runPromise(
    fencingRole().pipe(
      Effect.provide(
        Layer.effect(
          Store,
          Effect.acquireRelease(
            Effect.sync(() => ({ sql: postgres(url, { max: 1, onnotice: () => undefined }), url, schema })),
            ({ sql }) => Effect.promise(() => sql.end()),
          ),
        ),
      ),
      Effect.scoped,
    ),
  )

/** A holder of epoch 1 as role mesh_a, its sessions bounded to 300 ms, stopped (SIGSTOP) mid-statement. */
const pausedHolder = () => {
  const code = `
import net from "node:net"
import postgres from "postgres"
const url = new URL(process.env.HOLDER_URL)
const sql = postgres(process.env.HOLDER_URL, {
  max: 1, onnotice: () => undefined,
  connection: { search_path: "${schema}", statement_timeout: "300", idle_in_transaction_session_timeout: "300", lock_timeout: "150" },
  socket: () => new Promise((ok) => {
    const s = net.connect(Number(url.port), url.hostname, () => ok(s))
    const write = s.write.bind(s)
    s.write = (chunk, ...rest) => {
      const r = write(chunk, ...rest)
      // Parse/Describe/Flush of the marked statement handed to the kernel: stop before the answer is read.
      if (Buffer.from(chunk).includes("paused_here")) {
        const until = Date.now() + 200
        while (Date.now() < until) {}
        process.kill(process.pid, "SIGSTOP")
      }
      return r
    }
  }),
})
await sql.begin(async (tx) => {
  await tx\`select mesh_fence(1)\`
  console.log("fenced")
  await tx\`select \${"x"}::text as paused_here\`
})
`
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
    cwd: join(import.meta.dirname, "../.."),
    env: { ...process.env, HOLDER_URL: urlAs("mesh_a", pw.a) },
    stdio: ["ignore", "pipe", "inherit"],
  })
  return child
}

const olderSessions = async (root: postgres.Sql) =>
  (
    await root`select distinct a.pid from pg_stat_activity a join pg_locks l on l.pid = a.pid
      where l.relation = ${`${schema}.lease_fence`}::regclass and a.application_name = 'mesh_fence epoch 1'`
  ).length

describe("a controller's role and the fence (issue 40)", () => {
  it("refuses a role that cannot end another role's sessions, naming the grant, and accepts it once granted", async () => {
    const refused = await refusalFor(urlAs("mesh_b", pw.b))
    expect(refused).toBe(
      "the store's role mesh_b cannot end another controller's sessions, which fencing a paused holder needs, so this controller does not act: GRANT pg_signal_backend TO mesh_b;",
    )
    expect(await refusalFor(pg.url)).toBeUndefined()
    const root = pg.sql()
    await root.unsafe("grant pg_signal_backend to mesh_b")
    expect(await refusalFor(urlAs("mesh_b", pw.b))).toBeUndefined()
    await root.unsafe("revoke pg_signal_backend from mesh_b")
    await root.end()
  }, 30_000)

  it("a holder paused mid-statement outlives its bounds; a newer epoch without the grant cannot end it, with it at once", async () => {
    const holder = pausedHolder()
    const root = pg.sql()
    try {
      await new Promise<void>((ok, fail) => {
        const t = setTimeout(() => fail(new Error("the holder never fenced")), 15_000)
        holder.stdout!.on("data", (d: Buffer) => d.toString().includes("fenced") && (clearTimeout(t), ok()))
      })
      await new Promise((r) => setTimeout(r, 2_000))
      // Seven times its 300 ms bounds: still there, still holding the fence.
      expect(await olderSessions(root)).toBe(1)
      const newer = postgres(urlAs("mesh_b", pw.b), {
        max: 1,
        onnotice: () => undefined,
        connection: { search_path: schema, statement_timeout: 1500 },
      })
      const began = Date.now()
      await expect(newer`select mesh_fence(2)`).rejects.toThrow(/statement timeout/)
      expect(Date.now() - began).toBeGreaterThanOrEqual(1_400)
      expect(await olderSessions(root)).toBe(1)
      await root.unsafe("grant pg_signal_backend to mesh_b")
      const granted = Date.now()
      await newer`select mesh_fence(2)`
      const ended = Date.now() - granted
      console.log(`[fencing-role] with pg_signal_backend the paused holder's session was ended in ${ended} ms`)
      expect(ended).toBeLessThan(1_400)
      expect(await olderSessions(root)).toBe(0)
      await newer.end()
    } finally {
      holder.kill("SIGKILL")
      await root.unsafe("revoke pg_signal_backend from mesh_b").catch(() => undefined)
      await root.end()
    }
  }, 60_000)

  it("serve under a role that cannot fence says the grant and does not act (exit 1)", () => {
    const { prefix } = uniqueNames("fencing")
    const r = runCli(["serve"], {
      DATABASE_URL: urlAs("mesh_a", pw.a),
      MESH_STORE_SCHEMA: `${prefix}_s`,
      MESH_BUS_PREFIX: prefix,
    })
    expect(r.code).toBe(1)
    expect(`${r.out}${r.err}`).toContain("GRANT pg_signal_backend TO mesh_a;")
    expect(`${r.out}${r.err}`).not.toContain("holds the controller lease")
  }, 60_000)
})
