// What this controller says a person should know that does not stop it acting (issue 27: a recording
// that stopped). Said once in the journal where it happens; kept here so `/readyz` says it as a note
// and the lease record carries it to `status`, which runs in another process.
import { Context, Effect, Layer, Ref } from "effect"

export class ControllerNotes extends Context.Service<
  ControllerNotes,
  {
    /** Keeps a note (once: a note already kept is not kept again). */
    readonly add: (note: string) => Effect.Effect<void>
    readonly all: Effect.Effect<ReadonlyArray<string>>
  }
>()("mesh-core/controller/ControllerNotes") {
  static readonly layer = Layer.effect(
    ControllerNotes,
    Effect.gen(function* () {
      const notes = yield* Ref.make<ReadonlyArray<string>>([])
      return ControllerNotes.of({
        add: (note) => Ref.update(notes, (ns) => (ns.includes(note) ? ns : [...ns, note])),
        all: Ref.get(notes),
      })
    }),
  )
}
