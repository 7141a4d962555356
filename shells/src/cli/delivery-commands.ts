// The delivery commands: mesh apply, push, declare, identity, node-engine.
import { NodeServices } from "@effect/platform-node"
import { digestOf } from "@mesh-core/core/delivery/compose"
import { pushArguments } from "@mesh-core/core/delivery/behind"
import { holdJson } from "@mesh-core/core/delivery/held"
import { readRecordsText, recordsFileMaxBytes } from "@mesh-core/core/mesh/records"
import { parseDuration } from "@mesh-core/core/duration"
import { canonicalJson, isJsonObject, type JsonObject, parseJson } from "@mesh-core/core/json"
import { Clock, Effect, Layer, Option } from "effect"
import { handOver, keepingHandovers } from "@mesh-core/core/mesh/handover"
import { personProblem } from "@mesh-core/core/person"
import { Argument, Command, Flag } from "effect/cli"
import * as Bus from "../bus/nats.ts"
import { overTheBusLimit } from "@mesh-core/core/delivery/signing"
import { ConnectionSettings, userName } from "../config.ts"
import { push } from "../delivery/push.ts"
import { deliveryNames } from "../bus/delivery-names.ts"
import { runEngine } from "../engine/simulated.ts"
import { writeLines, writeOut } from "../files/output.ts"
import { readBounded, readLimits } from "../files/lines.ts"
import { establish } from "../delivery/identity.ts"
import * as Journal from "../journal.ts"
import { makeOutage, untilItAnswers } from "../retry.ts"
import { DeliveryStore } from "../store/delivery.ts"
import { Store, storeError } from "../store/postgres.ts"
import { BusLive, forCommand, StoreLive, storesOver } from "./wiring.ts"
import { CommandFailed, endingWith, exitCodes } from "./errors.ts"

const bad = (said: string) => Effect.fail(new CommandFailed({ code: exitCodes.badInput, said }))
const incomplete = (said: string) => Effect.fail(new CommandFailed({ code: exitCodes.notWell, said }))
const stores = forCommand(storesOver(StoreLive))
const storesAndBus = forCommand(Layer.merge(storesOver(StoreLive), BusLive))
const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print the outcome as one JSON object, for scripts"),
  Flag.withDefault(false),
)

/** A file given to a command: a regular file within `most` bytes, or one line and exit 2 (issue 43). */
const readInput = (file: string, most: number) =>
  readBounded(file, most).pipe(
    Effect.catchTag("FileUnreadable", (e) => bad(e.message)),
    Effect.provide(NodeServices.layer),
  )

/** A JSON file given to a command, nested no deeper than the core allows: its value, or exit 2. */
const readJson = (file: string) =>
  Effect.flatMap(readInput(file, readLimits.document), (text) => {
    const read = parseJson(text)
    return "problem" in read ? bad(`${file}: ${read.problem}`) : Effect.succeed(read.value)
  })

const apply = Command.make(
  "apply",
  { file: Argument.String("file").pipe(Argument.withDescription("The mesh's records, as JSON")) },
  ({ file }) =>
    Effect.gen(function* () {
      // The records file read and checked whole, before the store is opened (issue 27).
      const read = readRecordsText(yield* readInput(file, recordsFileMaxBytes))
      if (!read.ok) return yield* bad(`${file}: ${read.field}: ${read.problem}`)
      const r = read.value
      yield* Effect.gen(function* () {
        const delivery = yield* DeliveryStore
        // The seats handed over by a person stay handed over (core/src/mesh/handover.ts).
        yield* delivery.saveRecords(keepingHandovers(r, yield* delivery.records))
        yield* writeOut(
          `the mesh ${r.mesh}: ${r.nodes.length} machine(s), ${r.modules.length} module(s), ${r.assignments.length} assignment(s)\n`,
        )
      }).pipe(Effect.provide(stores))
    }).pipe(endingWith(exitCodes.unreachable)),
).pipe(Command.withDescription("Give the controller the mesh's records: machines, modules and assignments"))

const handover = Command.make(
  "handover",
  {
    module: Argument.String("module").pipe(Argument.withDescription("The module that holds the bus from now")),
    node: Flag.String("node").pipe(
      Flag.withDescription("The machine it holds the bus on (default: the first it is assigned to)"),
      Flag.optional,
    ),
    by: Flag.String("as").pipe(
      Flag.withDescription("Who hands it over (default: $USER)"),
      Flag.withDefault(userName()),
    ),
  },
  ({ module, node, by }) => {
    const nobody = personProblem("--as", by)
    if (nobody !== undefined) return bad(nobody).pipe(endingWith(exitCodes.badInput))
    return Effect.gen(function* () {
      const delivery = yield* DeliveryStore
      const records = yield* delivery.records
      if (records === undefined)
        return yield* bad("the mesh has no records yet: give them with mesh-controller mesh apply FILE")
      const handed = handOver(records, {
        module,
        node: Option.getOrUndefined(node),
        by,
        at: new Date(yield* Clock.currentTimeMillis).toISOString(),
      })
      if (!handed.ok) return yield* bad(handed.problem)
      yield* delivery.saveRecords(handed.records)
      yield* writeLines([handed.said])
    }).pipe(Effect.provide(stores), endingWith(exitCodes.unreachable))
  },
).pipe(
  Command.withDescription(
    "Hand the bus seat to a module, recorded with who and when: from then on its machine holds the bus (seed 002's holdings)",
  ),
)

export const meshCommand = Command.make("mesh").pipe(
  Command.withDescription("The mesh's records"),
  Command.withSubcommands([apply, handover]),
)

export const pushCommand = Command.make(
  "push",
  {
    node: Argument.String("node").pipe(
      Argument.withDescription("One machine; all of them when left out"),
      Argument.optional,
    ),
    behind: Flag.Boolean("behind").pipe(
      Flag.withDescription(
        "Only machines whose last declaration was refused or partly failed, or not running what the mesh would send",
      ),
      Flag.withDefault(false),
    ),
    wait: Flag.String("wait").pipe(
      Flag.withDescription(
        "For a named machine, how long to wait for it to report applying what it was sent (e.g. 30s; 0: do not wait)",
      ),
      Flag.withDefault("0"),
    ),
    json,
  },
  ({ node, behind, wait, json }) => {
    // Checked before the store or the bus is opened (issue 27): a bad argument is one line and exit 2.
    const args = pushArguments(node._tag === "Some" ? [node.value] : [], behind, wait)
    if ("problem" in args) return bad(args.problem).pipe(endingWith(exitCodes.badInput))
    return Effect.gen(function* () {
      const said: Array<string> = []
      const { busPrefix } = yield* ConnectionSettings
      const result = yield* push({
        node: args.node,
        behind,
        wait: args.waitMs,
        names: deliveryNames(busPrefix),
        say: (line) => (json ? Effect.sync(() => void said.push(line)) : writeLines([line])),
      }).pipe(Effect.catchTag("PushRefused", (e) => bad(e.said)))
      if (json) {
        yield* writeOut(
          `${JSON.stringify({
            told: result.told,
            refusals: result.refusals,
            error: result.error ?? null,
            said,
            held: (result.held ?? []).map(holdJson),
            flushed: result.flushed ?? [],
          })}\n`,
        )
      }
      if (result.error !== undefined) return yield* incomplete(result.error)
    }).pipe(Effect.provide(storesAndBus), endingWith(exitCodes.unreachable))
  },
).pipe(
  Command.withDescription(
    "Send machines everything they should be: the machine holding the bus first, then the grants, then every other declaration (exit 1 when not all was sent). " +
      "A machine a release plan has not reached keeps the build it runs until the plan's gate passes, named with why; after a named push, the machines behind as a consequence of it are sent too",
  ),
  Command.withExamples([
    { command: "mesh-controller push", description: "Every machine" },
    {
      command: "mesh-controller push hq-3 --wait 30s",
      description: "One machine, waiting until it applied what it was sent",
    },
    { command: "mesh-controller push --behind", description: "Only the machines that need one" },
  ]),
)

export const declareCommand = Command.make(
  "declare",
  {
    node: Argument.String("node").pipe(Argument.withDescription("The machine")),
    file: Argument.String("declaration").pipe(
      Argument.withDescription("A declaration as JSON: its node and a new sequence are set in it, and it is signed"),
    ),
  },
  ({ node, file }) =>
    Effect.gen(function* () {
      // Read and checked before the store and the bus are opened (issue 43: a fifo hung it).
      const value = yield* readJson(file)
      if (!isJsonObject(value)) return yield* bad(`${file}: a declaration is a JSON object`)
      yield* sendDeclaration(node, file, value).pipe(Effect.provide(storesAndBus))
    }).pipe(endingWith(exitCodes.unreachable)),
).pipe(Command.withDescription("Send one machine a declaration given by hand, signed"))

const sendDeclaration = (node: string, file: string, declaration: JsonObject) =>
  Effect.gen(function* () {
    const delivery = yield* DeliveryStore
    const { url } = yield* Store
    const { busPrefix } = yield* ConnectionSettings
    // The machine has to exist before it can be told anything: a queue nobody consumes would sit
    // there looking like success.
    if (!(yield* delivery.nodeNames).includes(node))
      return yield* bad(`no machine named ${node} is in the mesh's records`)
    const signer = yield* establish()
    // Measured before a sequence is taken: the largest sequence a declaration can carry, and a
    // signature's length (ed25519 in base64), so the envelope sent is never larger than this.
    const largest = canonicalJson({
      resources: [],
      ...declaration,
      node,
      sequence: Number.MAX_SAFE_INTEGER,
    })
    const tooLarge = overTheBusLimit({
      node,
      bytes: Buffer.byteLength(
        JSON.stringify({ body: largest, signature: "x".repeat(88), key: signer.fingerprint }),
        "utf8",
      ),
      limit: yield* Bus.maxPayload,
    })
    if (tooLarge !== undefined) return yield* bad(`${file}: ${tooLarge}`)
    const release = yield* delivery.holdNodes([node])
    const body = yield* Effect.gen(function* () {
      const sequence = yield* delivery.allot(node)
      const body = canonicalJson({ resources: [], ...declaration, node, sequence })
      // Said as before: the failure's own words, after the store's (issue 25 moved only where it is sent from).
      yield* Bus.assertDeliveryStreams(deliveryNames(busPrefix)).pipe(
        Effect.andThen(
          Bus.publishDeclaration(deliveryNames(busPrefix), node, {
            body,
            signature: signer.sign(body),
            key: signer.fingerprint,
          }),
        ),
        Effect.mapError((e) => storeError(url)(e.cause)),
      )
      // Written down like every other send: what a person sent by hand is still what the machine
      // was last told. Which builds it carried is not known: the mesh did not compose it.
      yield* delivery
        .recordSent(node, { digest: digestOf(body), sequence, builds: null, busUsersDigest: undefined })
        .pipe(Effect.uninterruptible)
      return body
    }).pipe(Effect.ensuring(release.pipe(Effect.ignore)))
    yield* writeOut(`sent ${node} a signed declaration (${Buffer.byteLength(body)} bytes)\n`)
  })

export const identityCommand = Command.make("identity", { json }, ({ json }) =>
  Effect.gen(function* () {
    const signer = yield* establish()
    yield* writeOut(
      json ? `${JSON.stringify({ fingerprint: signer.fingerprint, publicKey: signer.publicPem })}\n` : signer.publicPem,
    )
  }).pipe(Effect.provide(stores), endingWith(exitCodes.unreachable)),
).pipe(
  Command.withDescription(
    "The controller's public signing key (PEM), which node engines are given to trust; established at first use",
  ),
)

export const engineCommand = Command.make(
  "node-engine",
  {
    simulate: Flag.String("simulate").pipe(Flag.withDescription("Run a simulated engine for this machine")),
    trustKey: Flag.String("trust-key").pipe(
      Flag.withDescription("The controller's public key (PEM file), as mesh-controller identity prints it"),
    ),
    failModule: Flag.String("fail-module").pipe(
      Flag.withDescription("A module whose resources fail to apply here (repeatable)"),
      Flag.atLeast(0),
    ),
    crashModule: Flag.String("crash-module").pipe(
      Flag.withDescription("A module (or module@build) that applies and then crash-loops here (repeatable)"),
      Flag.atLeast(0),
    ),
    stateEvery: Flag.String("state-every").pipe(
      Flag.withDescription("How often it states the health of what it runs"),
      Flag.withDefault("2s"),
    ),
    detects: Flag.String("detects").pipe(
      Flag.withDescription(
        'The capabilities this machine has a detector for, comma-separated ("" for none); without it the engine never says',
      ),
      Flag.optional,
    ),
  },
  ({ simulate, trustKey, failModule, crashModule, stateEvery, detects }) =>
    // The key is read before the bus is opened (issue 43: a device given as a file is refused at once).
    Effect.flatMap(readInput(trustKey, readLimits.key), (trustPem) =>
      Effect.gen(function* () {
        const every = parseDuration(stateEvery)
        if (every === undefined || every <= 0)
          return yield* bad(`--state-every ${stateEvery}: give a duration, as in 2s`)
        const { busPrefix } = yield* ConnectionSettings
        return yield* runEngine({
          node: simulate,
          trustPem,
          failing: new Set(failModule),
          crashing: new Set(crashModule),
          stateEvery: every,
          names: deliveryNames(busPrefix),
          detects: Option.match(detects, {
            onNone: () => undefined,
            onSome: (s) =>
              s
                .split(",")
                .map((c) => c.trim())
                .filter((c) => c !== ""),
          }),
        })
      }).pipe(
        Effect.scoped,
        Effect.provide(Layer.mergeAll(forCommand(BusLive), Journal.stderrLayer, NodeServices.layer)),
        // A machine waits for its bus, said once: the soak's engines ended (exit 3) when JetStream had
        // no quorum as they started.
        (started) =>
          Effect.flatMap(makeOutage(`engine ${simulate}`), (outage) =>
            started.pipe(
              Effect.tapError((e) => (e._tag === "BusUnreachable" ? outage.failed(e) : Effect.void)),
              Effect.retry({ schedule: untilItAnswers, while: (e) => e._tag === "BusUnreachable" }),
            ),
          ).pipe(Effect.provide(Journal.stderrLayer)),
      ),
    ).pipe(endingWith(exitCodes.unreachable)),
).pipe(
  Command.withDescription(
    "A node engine: --simulate NAME verifies, applies (simulated) and reports each declaration sent to NAME",
  ),
)
