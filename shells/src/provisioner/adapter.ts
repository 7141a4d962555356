// The per-service half of a provider (novox/hq ADR 0039: the loop is the SDK's, the adapter is the
// module's). Create brings a consumer's resource into being under the login and password the mesh
// minted; Remove withdraws it; Holds says, read-only, whether the backend still holds it exactly so.
import type { JsonObject } from "@mesh-core/core/json"
import type { Provision } from "@mesh-core/core/provisioner/model"
import { Data, type Effect } from "effect"

/** An adapter's failure; `class` is its own word for it (credentials-rejected, unreachable, …) when it has one. */
export class AdapterError extends Data.TaggedError("AdapterError")<{
  readonly text: string
  readonly class?: string | undefined
  readonly cause?: unknown
}> {
  override get message(): string {
    return this.text
  }
}

export interface Adapter {
  readonly create: (p: Provision) => Effect.Effect<void, AdapterError>
  readonly remove: (as: string, derived: JsonObject) => Effect.Effect<void, AdapterError>
  readonly holds: (p: Provision) => Effect.Effect<boolean, AdapterError>
}
