// The PostgreSQL adapter's errors carry the seed's classes.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { postgresAdapter } from "../../shells/src/provisioner/postgres-adapter.ts"

const provision = { as: "mesh_nobody", password: "pw-unused-1", values: {}, derived: {}, at: "hq-3", consumer: "hq-3" }
const outcome = (adminUrl: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const adapter = yield* postgresAdapter({ adminUrl })
    return yield* Effect.flip(adapter.create(provision))
  })))

describe("the PostgreSQL adapter", () => {
  it("classes a stopped server as unreachable, without saying the admin password", async () => {
    const e = await outcome("postgres://mesh_admin:s3cret-admin@127.0.0.1:1/postgres")
    expect(e.class).toBe("unreachable")
    expect(e.text).not.toContain("s3cret-admin")
  })
})
