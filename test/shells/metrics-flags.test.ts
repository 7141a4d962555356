// serve's watch flags (issue 10): the flag wins, else the environment, else the default; an address
// that is none, or a format that is neither text nor json, is refused.
import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { describe, expect, it } from "vitest"
import { logFormatFlag, metricsAddrFlag } from "../../shells/src/metrics/flags.ts"

const parse = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let got: { addr: string; format: string } | undefined
  const cmd = Command.make("serve", { addr: metricsAddrFlag, format: logFormatFlag }, ({ addr, format }) =>
    Effect.sync(() => void (got = { addr, format })),
  )
  const exit = await Effect.runPromiseExit(
    Command.runWith(cmd, { version: "0", renderErrors: false })(args).pipe(
      Effect.provide(Layer.mergeAll(NodeServices.layer, ConfigProvider.layer(ConfigProvider.fromUnknown(env)))),
    ),
  )
  return exit._tag === "Success" ? got : undefined
}

describe("--metrics-addr and --log-format", () => {
  it("the flag first, then MESH_METRICS_ADDR / MESH_LOG_FORMAT, then 127.0.0.1:9464 and text", async () => {
    expect(await parse([])).toEqual({ addr: "127.0.0.1:9464", format: "text" })
    expect(await parse([], { MESH_METRICS_ADDR: "0.0.0.0:9100", MESH_LOG_FORMAT: "json" })).toEqual({
      addr: "0.0.0.0:9100",
      format: "json",
    })
    expect(
      await parse(["--metrics-addr", "[::1]:9464", "--log-format", "json"], { MESH_METRICS_ADDR: "0.0.0.0:9100" }),
    ).toEqual({ addr: "[::1]:9464", format: "json" })
  })

  it("refuses an address that is not host:port and a format that is neither", async () => {
    expect(await parse(["--metrics-addr", "9464"])).toBeUndefined()
    expect(await parse([], { MESH_METRICS_ADDR: "localhost" })).toBeUndefined()
    expect(await parse(["--log-format", "yaml"])).toBeUndefined()
  })
})
