import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { Context, Layer } from "effect"

/**
 * This controller's name: the one its lease record carries as holder, and its verb subject's token,
 * so the CLI asks the holder by the name the record gives. Unique per process (docs/lease.md).
 */
export class ControllerName extends Context.Service<ControllerName, { readonly self: string }>()(
  "mesh-core/ControllerName",
) {
  static readonly layer = Layer.sync(ControllerName, () =>
    ControllerName.of({ self: `${hostname()}/${process.pid}/${randomBytes(3).toString("hex")}` }),
  )
  static readonly layerTest = (self: string) => Layer.succeed(ControllerName, ControllerName.of({ self }))
}
