// Waiting on what a test waits for (issue 39): a condition looked at again every millisecond, never a
// sleep long enough "for it to have happened", which is too short on a loaded machine and wasted on an idle one.
import { Effect } from "effect"

/** Waits until `done` holds, looking every millisecond, for at most five seconds. */
export const until = (done: () => boolean) =>
  Effect.gen(function* () {
    for (let waited = 0; !done(); waited++) {
      if (waited > 5_000) return yield* Effect.die(new Error("waited five seconds for it"))
      yield* Effect.sleep("1 millis")
    }
  })
