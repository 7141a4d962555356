// A hung backend (issue 14): a server that takes the connection and never answers. Every call is
// bounded, so the provider goes on, counts each cut-off call as unreachable, and announces the
// standing once FailingAfter has passed, as for any other failure.
import { NodeServices } from "@effect/platform-node"
import { Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Announcement } from "@mesh-core/core/provisioner/model"
import * as Journal from "../../shells/src/journal.ts"
import * as Announcer from "../../shells/src/provisioner/announcer.ts"
import { postgresAdapter } from "../../shells/src/provisioner/postgres-adapter.ts"
import { runProvisioner } from "../../shells/src/provisioner/run.ts"
import { leaksOf } from "../support/leaks.ts"
import { providerFiles, startHungServer } from "../support/private-provider.ts"
import { eventually } from "../support/servers.ts"

const passwords = { mesh_letta: "hung-backend-pw-1", mesh_ada: "hung-backend-pw-2" }
const settings = { every: 250, verifyEvery: 250, holdsTimeout: 300, failingAfter: 2_000, sayAgainEvery: 60_000 }

describe("a provider whose backend hangs", () => {
  let hung: Awaited<ReturnType<typeof startHungServer>>
  beforeAll(async () => {
    hung = await startHungServer()
  })
  afterAll(async () => {
    await hung.close()
  })

  it("announces every consumer unreachable after FailingAfter, and keeps running", async () => {
    const files = providerFiles(passwords)
    const announced: Array<Announcement> = []
    const said: Array<string> = []
    const adminUrl = `postgres://mesh_admin:hung-admin-pw-9@127.0.0.1:${hung.port}/postgres`
    const started = Date.now()
    const program = Effect.scoped(
      Effect.gen(function* () {
        const adapter = yield* postgresAdapter({ adminUrl })
        return yield* runProvisioner({
          provider: { resource: "postgres", receives: files.receives, node: "hq-1" },
          adapter,
          settings,
        })
      }),
    ).pipe(
      Effect.provide(Layer.mergeAll(Announcer.memoryLayer(announced), Journal.memoryLayer(said), NodeServices.layer)),
    )
    const fiber = Effect.runFork(program)
    try {
      const failing = await eventually(
        "both consumers announced failing",
        () => {
          const f = announced.filter((a) => a.event === "provisioner.failing")
          return f.length >= 2 ? f : undefined
        },
        10_000,
      )
      const took = Date.now() - started
      expect(hung.accepted()).toBeGreaterThan(0)
      for (const f of failing) {
        if (f.event !== "provisioner.failing") throw new Error("not failing")
        expect(f.body.class).toBe("unreachable")
        expect(f.body.attempts).toBeGreaterThanOrEqual(2)
        expect(f.body.error).toContain("did not answer within 300ms")
        // no sooner than FailingAfter after the first failure
        expect(f.at - Date.parse(f.body.since)).toBeGreaterThanOrEqual(settings.failingAfter - 1_000)
      }
      expect(took).toBeGreaterThanOrEqual(settings.failingAfter)
      expect(took).toBeLessThan(8_000)
      // still reconciling: it goes on asking
      const before = said.length
      await eventually(
        "the provider says more",
        () => (said.length > before || hung.accepted() > 2 ? true : undefined),
        3_000,
      )
      expect(fiber.pollUnsafe()).toBeUndefined()
      expect(
        leaksOf([...Object.values(passwords), "hung-admin-pw-9"], {
          journal: said.join("\n"),
          bus: JSON.stringify(announced),
        }),
      ).toEqual([])
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
      files.remove()
    }
  }, 20_000)
})
