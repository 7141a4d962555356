// The verbs' round trip over the real NATS (issue 10): the CLI's request reaches the responder serve
// runs, on the subject of the controller the lease record names (or --controller), and its reply is
// what the CLI ends with; an odd request on the same subject is refused and the next still answered;
// no controller answering is said, exit 3. The store is the in-memory one: the bus is what is tested.
import { Kvm } from "@nats-io/kv"
import { defaultGateSettings } from "@mesh-core/core/gate/judging/judge"
import { gwPlan } from "../support/opened-plan.ts"
import { verbSubject } from "@mesh-core/core/gate/operator/verb-wire"
import { Effect, Exit, Fiber, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { MeshBus } from "../../shells/src/bus/mesh-bus.ts"
import { Bus, open } from "../../shells/src/bus/nats.ts"
import { prefixed } from "../../shells/src/bus/subjects.ts"
import { sendVerb } from "../../shells/src/cli/plans-commands.ts"
import { verbQuestions } from "@mesh-core/core/gate/operator/questions"
import { answeringOnly } from "../support/answering.ts"
import { ControllerRecorder } from "../../shells/src/program/recorder.ts"
import { ControllerName, GateTurn, verbResponder } from "../../shells/src/gate/verbs.ts"
import * as Journal from "../../shells/src/journal.ts"
import { leaseBucketName, leaseKey } from "../../shells/src/lease/bucket.ts"
import { LeaseView } from "../../shells/src/metrics/probes.ts"
import { GateStore } from "../../shells/src/store/gate.ts"
import { natsUrl, requireNats, uniqueNames } from "../support/servers.ts"

const { prefix } = uniqueNames("verbs")
const self = `ctl-${prefix}/7/abc`
const plan = gwPlan(Date.now())
const said: Array<string> = []

/** serve's responder, alone, over the real bus and the in-memory store, holding the lease. */
const responder = Effect.gen(function* () {
  const gates = yield* GateStore
  const bus = yield* MeshBus
  yield* (yield* LeaseView).set({ held: true, holder: self, epoch: 1 })
  const base = answeringOnly(verbQuestions, {
    "plan-of": (q) => Effect.map(gates.planOf(q.id).pipe(Effect.orDie), (value) => ({ ok: true as const, value })),
    "save-plan": (q) => Effect.as(gates.savePlan(q.plan).pipe(Effect.orDie), { ok: true as const }),
    publish: (q) =>
      Effect.as(bus.publish(`${prefix}.mesh.event.${q.event}`, JSON.stringify(q.body)).pipe(Effect.orDie), {
        ok: true as const,
      }),
  })
  return yield* verbResponder(base, prefix, defaultGateSettings)
}).pipe(
  Effect.scoped,
  Effect.provide(
    Layer.mergeAll(
      GateStore.layerTest({ plans: [plan] }),
      MeshBus.layerTest(),
      LeaseView.layer,
      GateTurn.layer,
      ControllerName.layerTest(self),
      ControllerRecorder.layerNone,
      Layer.effect(Bus, open(natsUrl)),
    ),
  ),
  Effect.provide(Journal.memoryLayer(said)),
)

const fiber = Effect.runFork(
  responder.pipe(Effect.tapCause((c) => Effect.sync(() => said.push(`responder ended: ${String(c)}`)))),
)
afterAll(async () => {
  await Effect.runPromise(Fiber.interrupt(fiber))
  const nc = await requireNats()
  await new Kvm(nc)
    .open(leaseBucketName(prefix))
    .then((kv) => kv.destroy())
    .catch(() => undefined)
  await nc.close()
})

const until = async (ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end && !said.some((l) => l.startsWith("[plans] answering")))
    await new Promise((r) => setTimeout(r, 50))
}

const send = (verb: "pause" | "resume", controller: string | undefined) =>
  Effect.runPromiseExit(sendVerb(natsUrl, prefix, { verb, plan: plan.id, by: "ann", why: "test" }, controller, 10_000))

describe("the verbs over the real bus", () => {
  it("the CLI's verb reaches the controller named, and its reply is what the CLI ends with", async () => {
    const nc = await requireNats()
    await nc.close()
    await until(10_000)
    const exit = await send("pause", self)
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ ok: true, code: 0 })
    expect(said).toContain(`[plans] answering operators' verbs on ${verbSubject(prefixed(prefix).dot, self)}`)
  })

  it("an odd request on the subject is refused, and the next verb is still answered", async () => {
    const nc = await requireNats()
    try {
      const odd = await nc.request(verbSubject(prefixed(prefix).dot, self), '{"verb":"dance"}', { timeout: 10_000 })
      expect(JSON.parse(odd.string())).toMatchObject({ ok: false, code: 2 })
    } finally {
      await nc.close()
    }
    const exit = await send("resume", self)
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ ok: true, code: 0 })
  })

  it("without --controller, the holder the lease record names is asked; with none, it is said and nothing sent", async () => {
    const none = await send("pause", undefined)
    expect(Exit.isFailure(none) && JSON.stringify(none.cause)).toContain("no controller holds the lease")
    const nc = await requireNats()
    try {
      const kv = await new Kvm(nc).create(leaseBucketName(prefix))
      const now = Date.now()
      await kv.put(
        leaseKey,
        JSON.stringify({
          holder: self,
          epoch: 1,
          acquiredAt: now,
          renewedAt: now,
          durationMs: 15_000,
          givenBack: false,
          ready: true,
        }),
      )
    } finally {
      await nc.close()
    }
    const exit = await send("pause", undefined)
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ ok: true, code: 0 })
  })

  it("a controller that does not answer is said, naming it, with exit 3", async () => {
    const exit = await send("pause", "nobody-here")
    expect(Exit.isFailure(exit)).toBe(true)
    const failure = JSON.stringify(Exit.isFailure(exit) ? exit.cause : null)
    expect(failure).toContain("controller nobody-here did not answer")
    expect(failure).toContain('"code":3')
  })
})
