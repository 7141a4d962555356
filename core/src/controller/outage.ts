// A store that fails a follower's transaction: nothing of it was kept, and the messages come again
// (they are not acknowledged). Said as a program so a recorded outage replays to the same words.
import { type Program, say } from "./program.ts"

export function* storeFailed(during: string, messages: number, why: string): Program<"come-again"> {
  yield* say(`[controller] the store cannot be read: ${why}; ${messages} ${during} left to come again`)
  return "come-again"
}
