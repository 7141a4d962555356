// Announcing a provider's words on the bus. The loop hands each announcement to the outbox and goes
// on; a fiber publishes them in order, each until JetStream acknowledges it. So an announcement the
// bus does not take is retried, not lost, and a provider cut off from the bus keeps reconciling.
//
// The outbox is a file (issue 14: a `withdrawn` word said while the bus was down was lost with the
// in-memory outbox when the provider was killed, and the controller's standing stayed "failing" for
// ever). Each word is written there before it is sent and marked taken once acknowledged; a
// provider started again sends what is still owed first. What the file says and what is owed is
// the core's (core/src/provisioner/outbox.ts); this shell reads, appends, renames and sends. A
// message id made of the word itself lets the stream drop a resend that had in fact landed.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs"
import { dirname } from "node:path"
import type { Announcement } from "@mesh-core/core/provisioner/model"
import {
  emptyOutbox,
  fileOf,
  type Outbox,
  outboxNote,
  type OutboxOwner,
  type OutboxWrite,
  owe,
  type Owed,
  readOutbox,
  taken,
} from "@mesh-core/core/provisioner/outbox"
import { scrub } from "@mesh-core/core/provisioner/scrub"
import { Context, Data, Duration, Effect, Layer, Queue, Schedule } from "effect"
import { outlet } from "../bus/nats.ts"
import type { BusNames } from "../bus/subjects.ts"
import { natsSchemes, printableUrl, readServerList } from "@mesh-core/core/text/connection-url"
import { Journal } from "../journal.ts"
import { errorText } from "@mesh-core/core/text/error-text"
import { readBounded, readLimits, readSmallFile } from "../files/lines.ts"

export class Announcer extends Context.Service<
  Announcer,
  {
    readonly announce: (a: Announcement) => Effect.Effect<void>
    /** Announcements handed over and not yet acknowledged by the bus. */
    readonly outstanding: Effect.Effect<number>
  }
>()("mesh-core/Announcer") {}

class OutboxUnusable extends Data.TaggedError("OutboxUnusable")<{
  readonly file: string
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `--outbox ${this.file}: ${this.reason}`
  }
}

const subjectOf = (a: Announcement, names: BusNames): string =>
  a.event === "provisioner.failing" ? names.failing : names.recovered

/** Announcements kept in a list; for tests that need no bus. */
export const memoryLayer = (into: Array<Announcement>) =>
  Layer.succeed(Announcer, { announce: (a) => Effect.sync(() => void into.push(a)), outstanding: Effect.succeed(0) })

/** The bus URL's password in every spelling, so no error text carries it (issues 14, 27). */
const busSecretForms = (url: string): ReadonlyArray<string> => {
  const read = readServerList("NATS_URL", url, natsSchemes)
  return read.ok ? read.secretForms : []
}

/** The outbox file: where the core's writes land. Every write is synced, so a kill loses nothing written. */
const outboxFile = (file: string) => {
  const lock = `${file}.lock`
  const sync = (text: string, flags: string) => {
    const fd = openSync(flags === "a" ? file : `${file}.new`, flags, 0o600)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
  return {
    /** Takes the file for this process: one provider writes an outbox at a time. */
    lock: () => {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      for (let tries = 0; tries < 2; tries++) {
        try {
          writeFileSync(lock, `${process.pid}\n`, { flag: "wx", mode: 0o600 })
          return
        } catch (e) {
          if (!(e instanceof Error && "code" in e && e.code === "EEXIST")) throw e
        }
        const holder = Number(readSmallFile(lock, 64).trim())
        if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
          throw new Error(`in use by process ${holder} (${lock}); one provider per outbox`)
        }
        rmSync(lock, { force: true }) // left by a provider that was killed
      }
      throw new Error(`could not take ${lock}`)
    },
    unlock: () => rmSync(lock, { force: true }),
    write: (w: OutboxWrite) => {
      const text = w.lines.map((l) => `${l}\n`).join("")
      if (w.write === "append") {
        if (text !== "") sync(text, "a")
        return
      }
      // Replaced whole by a rename, so a kill leaves the old file or the new one, never half of one.
      sync(text, "w")
      renameSync(`${file}.new`, file)
    },
    remove: () => rmSync(file, { force: true }),
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e instanceof Error && "code" in e && e.code === "EPERM"
  }
}

export interface OutboxOptions {
  /** The file words owed to the bus are kept in; without it they are kept in memory only. */
  readonly file: string
  readonly owner: OutboxOwner
}

export const natsLayer = (url: string, names: BusNames, outboxOptions?: OutboxOptions) =>
  Layer.effect(
    Announcer,
    Effect.gen(function* () {
      const journal = yield* Journal
      const say = journal.say
      const secretForms = busSecretForms(url)
      const reasonFor = (e: unknown) => scrub(errorText(e), secretForms)
      const owner = outboxOptions?.owner ?? { resource: "", node: "" }
      const disk = outboxOptions === undefined ? undefined : outboxFile(outboxOptions.file)
      const unusable = (e: unknown) => new OutboxUnusable({ file: outboxOptions!.file, reason: errorText(e), cause: e })
      let outbox: Outbox = emptyOutbox
      if (disk !== undefined) {
        yield* Effect.acquireRelease(Effect.try({ try: () => disk.lock(), catch: unusable }), () =>
          Effect.sync(() => disk.unlock()),
        )
        // Bounded and a regular file only (issue 43: `--outbox /dev/full` was read without end).
        const text = existsSync(outboxOptions!.file)
          ? yield* readBounded(outboxOptions!.file, readLimits.document).pipe(
              Effect.mapError((e) => new OutboxUnusable({ file: e.file, reason: e.reason, cause: e })),
            )
          : ""
        const read = readOutbox(text, owner)
        if (!read.ok) {
          return yield* Effect.fail(
            new OutboxUnusable({
              file: outboxOptions!.file,
              reason: `line ${read.line}: ${read.field}: ${read.problem}`,
            }),
          )
        }
        outbox = read.outbox
        yield* Effect.try({ try: () => disk.write(fileOf(owner, outbox)), catch: unusable })
        const note = outboxNote(outboxOptions!.file, read)
        if (note !== undefined) yield* say(`[announcer] ${note}`)
      }
      // A word the disk would not take is still sent: said, not allowed to stop the provider.
      const written = (w: OutboxWrite) =>
        disk === undefined
          ? Effect.void
          : Effect.try({ try: () => disk.write(w), catch: unusable }).pipe(
              Effect.catch((e) => say(`[announcer] ${e.message}; the word is kept in memory only`)),
            )

      const queue = yield* Queue.unbounded<Owed>()
      let outstanding = 0
      for (const o of outbox.owed) {
        outstanding += 1
        yield* Queue.offer(queue, o)
      }
      const bus = outlet(url, "mesh-core provider")
      const publish = ({ id, word: a }: Owed) =>
        Effect.gen(function* () {
          yield* bus.connect.pipe(
            Effect.mapError(
              (e) => new Error(`the bus at ${printableUrl(url)} is not answering: ${reasonFor(e.cause)}`),
            ),
          )
          yield* bus
            .publish(subjectOf(a, names), JSON.stringify(a.body), {
              msgID: id,
              saidAt: new Date(a.at).toISOString(),
              timeoutMs: 5_000,
            })
            .pipe(
              Effect.mapError(
                (e) => new Error(`the bus did not take ${a.event} for ${a.body.consumer}: ${reasonFor(e.cause)}`),
              ),
            )
        })
      let complained = false
      const untilTaken = (o: Owed) =>
        publish(o).pipe(
          Effect.tapError((e) =>
            complained
              ? Effect.void
              : Effect.andThen(
                  Effect.sync(() => {
                    complained = true
                  }),
                  say(`[announcer] ${e.message}; keeping it and trying again`),
                ),
          ),
          Effect.retry(Schedule.spaced(Duration.millis(500))),
          Effect.tap(() =>
            Effect.sync(() => {
              complained = false
            }),
          ),
        )
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.gen(function* () {
            const o = yield* Queue.take(queue)
            yield* untilTaken(o)
            const t = taken(outbox, o.id, owner)
            outbox = t.outbox
            yield* written(t.file)
            outstanding -= 1
          }),
        ),
      )
      // On the way out, give what is still owed a few seconds to be taken; what is not stays in the
      // file for the next start. An outbox with nothing owed is removed: a clean stop leaves nothing.
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          // Within the second: a signal must stop the provider within 2 s even with the bus frozen.
          for (let waited = 0; outstanding > 0 && waited < 1_000; waited += 50) yield* Effect.sleep(Duration.millis(50))
          yield* Effect.ignore(Effect.timeout(bus.drain, Duration.millis(300)))
          if (disk !== undefined && outbox.owed.length === 0) yield* Effect.ignore(Effect.try(() => disk.remove()))
        }),
      )
      return {
        announce: (a: Announcement) =>
          Effect.gen(function* () {
            const o = owe(outbox, a)
            if (o.outbox === outbox) return
            outbox = o.outbox
            yield* written(o.file)
            outstanding += 1
            yield* Queue.offer(queue, o.outbox.owed[o.outbox.owed.length - 1]!)
          }),
        outstanding: Effect.sync(() => outstanding),
      }
    }),
  )
