// runProvisioner on Effect's TestClock: a provider's day in virtual time, its files in a folder of its own, its
// adapter a stand-in. What it announces and says comes from the same core simulate replays.
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import type { Announcement } from "@mesh-core/core/provisioner/model"
import * as Journal from "../../shells/src/journal.ts"
import { type Adapter, AdapterError } from "../../shells/src/provisioner/adapter.ts"
import * as Announcer from "../../shells/src/provisioner/announcer.ts"
import { runProvisioner } from "../../shells/src/provisioner/run.ts"

// The provider's files on disk, as it reads them (bounded, a regular file only: shells/src/files/lines.ts).
const dir = mkdtempSync(join(tmpdir(), "mesh-core-provider-"))
const receives = join(dir, "postgres.json")
writeFileSync(join(dir, "letta"), "pw-letta-1234\n")
writeFileSync(
  receives,
  JSON.stringify({ requirement: "postgres", given: [{ as: "letta", secret: join(dir, "letta"), node: "hq-3" }] }),
)
afterAll(() => rmSync(dir, { recursive: true, force: true }))
/** A few real milliseconds for a pass's reads, which the virtual clock does not wait on. */
const filesRead = Effect.promise(() => new Promise((r) => setTimeout(r, 25)))

const world = () => {
  let rejecting = true
  const creates: Array<string> = []
  const adapter: Adapter = {
    create: (p) =>
      Effect.suspend(() => {
        creates.push(p.password)
        return rejecting
          ? Effect.fail(
              new AdapterError({
                text: `password authentication failed for user "admin" (postgres://letta:${p.password}@db)`,
              }),
            )
          : Effect.void
      }),
    holds: () => Effect.succeed(true),
    remove: () => Effect.void,
  }
  return {
    adapter,
    creates,
    fix: () => {
      rejecting = false
    },
  }
}

describe("runProvisioner", () => {
  it.effect(
    "announces failing after FailingAfter of virtual time, again every SayAgainEvery, recovered once fixed",
    () =>
      Effect.gen(function* () {
        const announced: Array<Announcement> = []
        const said: Array<string> = []
        const w = world()
        const fiber = yield* Effect.forkChild(
          runProvisioner({ provider: { resource: "postgres", receives, node: "hq-1" }, adapter: w.adapter }).pipe(
            Effect.provide(Layer.mergeAll(Announcer.memoryLayer(announced), Journal.memoryLayer(said))),
          ),
        )
        // Each pass reads its files for real (the virtual clock does not wait on them) and then calls
        // create once: a step of the clock is taken once the pass before it has.
        const passed = (before: number) =>
          Effect.promise(async () => {
            for (let i = 0; i < 400 && w.creates.length === before; i++) await new Promise((r) => setTimeout(r, 5))
          })
        yield* passed(0)
        const advance = (ms: number) =>
          Effect.gen(function* () {
            for (let t = 0; t < ms; t += 5_000) {
              const before = w.creates.length
              yield* TestClock.adjust(5_000)
              yield* passed(before)
            }
          })
        yield* advance(4 * 60_000 + 55_000)
        assert.deepStrictEqual(
          announced.filter((a) => a.event === "provisioner.failing"),
          [],
        )
        yield* advance(5_000)
        const first = announced.filter((a) => a.event === "provisioner.failing")
        assert.strictEqual(first.length, 1)
        assert.strictEqual(first[0]!.at, 300_000)
        assert.include(first[0]!.body as object, {
          consumer: "letta",
          class: "credentials-rejected",
          attempts: 61,
          since: "1970-01-01T00:00:00Z",
        })
        yield* advance(15 * 60_000)
        assert.strictEqual(announced.filter((a) => a.event === "provisioner.failing").length, 2)
        w.fix()
        yield* advance(5_000)
        const last = announced.at(-1)!
        assert.strictEqual(last.event, "provisioner.recovered")
        assert.strictEqual((last.body as { attempts?: number }).attempts, 241)
        assert.isTrue(said.includes("[provisioner:postgres] letta: created, after 241 failed attempt(s)"))
        assert.isTrue(w.creates.every((p) => p === "pw-letta-1234"))
        for (const line of said) assert.notInclude(line, "pw-letta-1234")
        yield* Fiber.interrupt(fiber)
      }),
  )

  it.effect("an unreadable contributions file is said once and nothing is called", () =>
    Effect.gen(function* () {
      const said: Array<string> = []
      const w = world()
      const fiber = yield* Effect.forkChild(
        runProvisioner({
          provider: { resource: "postgres", receives: "/nowhere.json", node: "hq-1" },
          adapter: w.adapter,
        }).pipe(Effect.provide(Layer.mergeAll(Announcer.memoryLayer([]), Journal.memoryLayer(said)))),
      )
      for (let i = 0; i < 20; i++) yield* TestClock.adjust(5_000).pipe(Effect.andThen(filesRead))
      assert.strictEqual(said.filter((l) => l.includes("contributions file unreadable (/nowhere.json)")).length, 1)
      assert.strictEqual(w.creates.length, 0)
      yield* Fiber.interrupt(fiber)
    }),
  )
})
