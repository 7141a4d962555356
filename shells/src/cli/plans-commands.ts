// `mesh-controller plans`: the plans (list, the default), one plan's timeline (`show`), and the
// operators' verbs (issue 10). A verb is never carried out here: it is sent as a VerbRequest to one
// controller — `--controller`, else the holder the lease record names — which decides it in its core
// and replies; this prints the reply's sentence and exits with its code (0 done, 2 refused, 3 not
// read, kept or answered). docs/gate.md "What serve and the CLI call to carry the verbs out".
import { type VerbName, VerbReply, type VerbRequest } from "@mesh-core/core/gate/plan/records"
import { personProblem, reasonProblem } from "@mesh-core/core/person"
import { unanswered, verbSubject, verbTarget } from "@mesh-core/core/gate/operator/verb-wire"
import { planShow } from "@mesh-core/core/gate/plan/plan-show"
import { Clock, Effect, Option, Redacted, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { Bus, openOnce, request } from "../bus/nats.ts"
import { prefixed } from "../bus/subjects.ts"
import { ConnectionSettings, readGateSettings, userName } from "../config.ts"
import { writeLines, writeOut } from "../files/output.ts"
import { leaseBucketName } from "../lease/bucket.ts"
import { leaseSeen } from "../lease/read.ts"
import { GateStore } from "../store/gate.ts"
import { forCommand, StoreLive, storesOver } from "./wiring.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"
import { listPlans } from "./gate-commands.ts"
import { errorText } from "@mesh-core/core/text/error-text"

/** How long a controller may take to answer: a verb waits for the gate tick under way to end. */
const verbTimeoutMs = 20_000

const fail = (code: number, said: string) => Effect.fail(new CommandFailed({ code, said }))
const decodeReply = Schema.decodeUnknownExit(Schema.fromJsonString(VerbReply))

/** Sends one verb over the bus and waits for the reply; a controller that does not answer is said (exit 3). */
const requestVerb = Effect.fn("Plans.requestVerb")(function* (
  prefix: string,
  verb: VerbRequest,
  controller: string | undefined,
  timeoutMs = verbTimeoutMs,
) {
  const named = controller !== undefined && controller !== ""
  const seen = named ? { found: false as const } : yield* leaseSeen(leaseBucketName(prefix))
  const target = verbTarget(controller, seen, yield* Clock.currentTimeMillis)
  if (!target.ok) return yield* fail(exitCodes.unreachable, target.said)
  const subject = verbSubject(prefixed(prefix).dot, target.to)
  const text = yield* request(subject, JSON.stringify(verb), timeoutMs).pipe(
    Effect.catch((e) => fail(exitCodes.unreachable, unanswered(target.to, subject, errorText(e.cause)))),
  )
  const reply = decodeReply(text)
  if (reply._tag === "Failure")
    return yield* fail(
      exitCodes.unreachable,
      `controller ${target.to} answered on ${subject} with something that is not a verb's reply; nothing is known to be done`,
    )
  return reply.value
})

/** The same over a connection of its own to `url`, closed after. */
export const sendVerb = (
  url: string,
  prefix: string,
  request: VerbRequest,
  controller: string | undefined,
  timeoutMs = verbTimeoutMs,
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const bus = yield* openOnce(url).pipe(
        Effect.catch((e) =>
          fail(
            exitCodes.unreachable,
            `the bus at ${e.url} is not answering, so the verb is not sent: ${errorText(e.cause)}`,
          ),
        ),
      )
      return yield* requestVerb(prefix, request, controller, timeoutMs).pipe(Effect.provideService(Bus, bus))
    }),
  )

const id = Argument.String("id").pipe(Argument.withDescription("The plan, by its id (as `plans` lists it)"))

const verbCommand = (verb: VerbName, description: string) =>
  Command.make(
    verb,
    {
      id,
      why: Flag.String("why").pipe(
        Flag.withDescription("Why, in your words: kept with the act and said on the bus"),
        Flag.withDefault(""),
      ),
      as: Flag.String("as").pipe(
        Flag.withDescription("Who gives it, kept with the act (default $USER)"),
        Flag.withDefault(userName()),
      ),
      controller: Flag.String("controller").pipe(
        Flag.withDescription("The controller to ask, by name (default: the lease's holder)"),
        Flag.optional,
      ),
    },
    ({ id, why, as, controller }) =>
      Effect.gen(function* () {
        const nobody = personProblem("--as", as) ?? reasonProblem("--why", why)
        if (nobody !== undefined) return yield* fail(exitCodes.badInput, nobody)
        const { natsUrl, busPrefix } = yield* ConnectionSettings
        const reply = yield* sendVerb(
          Redacted.value(natsUrl),
          busPrefix,
          { verb, plan: id, by: as, why },
          Option.getOrUndefined(controller),
        )
        if (reply.code !== 0) return yield* fail(reply.code, reply.said)
        yield* writeLines([reply.said])
      }).pipe(Effect.provide(ConnectionSettings.layer), endingWith(exitCodes.unreachable)),
  ).pipe(Command.withDescription(description))

const json = Flag.Boolean("json").pipe(Flag.withDescription("Print as JSON, for scripts"), Flag.withDefault(false))

const showCommand = Command.make("show", { id, json }, ({ id, json }) =>
  Effect.gen(function* () {
    const plan = (yield* (yield* GateStore).plans).find((p) => p.id === id)
    if (plan === undefined) return yield* fail(exitCodes.badInput, `no plan ${id} (mesh-controller plans lists them)`)
    const s = yield* readGateSettings.pipe(
      Effect.catchTag("SettingRefused", (e) => fail(exitCodes.badInput, e.message)),
    )
    const shown = planShow(plan, s)
    yield* json ? writeOut(`${JSON.stringify(shown.json)}\n`) : writeLines(shown.lines)
  }).pipe(Effect.provide(forCommand(storesOver(StoreLive))), endingWith(exitCodes.unreachable)),
).pipe(Command.withDescription("One plan as a timeline: every judging of its gate and every verb given to it"))

export const plansCommand = Command.make("plans", { json }, listPlans).pipe(
  Command.withDescription(
    "The release plans and their gates, as the rollout's record; and what an operator does to one",
  ),
  Command.withSubcommands([
    Command.make("list", { json }, listPlans).pipe(
      Command.withDescription("The release plans and their gates (the default)"),
    ),
    showCommand,
    verbCommand("pause", "Stop judging a plan; nothing is sent or put back until it is resumed"),
    verbCommand("resume", "Judge a paused plan again, from where it was"),
    verbCommand("promote", "Pass a plan's gate now, by your word, and send the rest"),
    verbCommand("abort", "Fail a plan now and put back what was sent"),
    verbCommand("retry", "Judge again a plan left unchanged or that failed to send"),
  ]),
)
