// serve's flags for watching it (issue 10): `--metrics-addr` (else MESH_METRICS_ADDR, else
// 127.0.0.1:9464) and `--log-format` (else MESH_LOG_FORMAT, else text), each decoded by the core's
// Schema, so an address that is none stops serve at start with the reason.
import { ListenAddressText } from "@mesh-core/core/controller/metrics"
import { Flag } from "effect/cli"
import { logFormatConfig } from "../journal-json.ts"
import { metricsAddressConfig } from "./http.ts"

export const metricsAddrFlag = Flag.String("metrics-addr").pipe(
  Flag.withSchema(ListenAddressText),
  Flag.withFallbackConfig(metricsAddressConfig),
  Flag.withDescription(
    "Where /metrics, /healthz and /readyz listen, host:port (default $MESH_METRICS_ADDR, else 127.0.0.1:9464)",
  ),
)

export const logFormatFlag = Flag.Literals("log-format", ["text", "json"]).pipe(
  Flag.withFallbackConfig(logFormatConfig),
  Flag.withDescription(
    "The journal as text lines or as JSON Lines {time, level, area, message, fields} (default $MESH_LOG_FORMAT, else text)",
  ),
)
