// Traces (issue 44): with OTEL_EXPORTER_OTLP_ENDPOINT set, every span (each Effect.fn of the shells,
// each drive of a program and the questions it asks, each judging) is sent over OTLP/HTTP as JSON to
// ENDPOINT/v1/traces, in batches, with effect's own exporter; unset, no tracer is installed and
// nothing is sent. The OpenTelemetry spelling of the endpoint, so a collector's usual setting works.
import { Effect, Layer, Option } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as OtlpTracer from "effect/observability/OtlpTracer"
import { builtAs, projectVersion } from "../build-stamp.ts"
import { optionalSetting } from "../config.ts"

const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, "")}/v1/traces`

export const TracesLive = Layer.unwrap(
  Effect.gen(function* () {
    const endpoint = yield* optionalSetting("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Effect.orElseSucceed(Option.none))
    if (Option.isNone(endpoint)) return Layer.empty
    return OtlpTracer.layer({
      url: tracesUrl(endpoint.value),
      resource: { serviceName: "mesh-controller", serviceVersion: builtAs?.build ?? projectVersion },
      exportInterval: "1 second",
      shutdownTimeout: "1 second",
    }).pipe(Layer.provide(Layer.mergeAll(OtlpSerialization.layerJson, FetchHttpClient.layer)))
  }),
)
