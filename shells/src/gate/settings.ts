// The gate's bounds (ADR 0236, to-be 45 §8), from the environment where a test or a quick mesh sets
// them: MESH_GATE_SETTLE, MESH_GATE_BOUND, MESH_GATE_EVERY (durations), MESH_GATE_PASSES.
import { parseDuration } from "@mesh-core/core/duration"
import { defaultGateSettings, type GateSettings } from "@mesh-core/core/gate/judge"

export const gateSettingsFromEnvironment = (env: Record<string, string | undefined> = process.env): GateSettings => {
  const d = (name: string, fallback: number) => {
    const v = env[name]
    return v === undefined ? fallback : parseDuration(v) ?? fallback
  }
  const passes = Number(env["MESH_GATE_PASSES"] ?? defaultGateSettings.passes)
  return {
    settle: d("MESH_GATE_SETTLE", defaultGateSettings.settle),
    bound: d("MESH_GATE_BOUND", defaultGateSettings.bound),
    every: d("MESH_GATE_EVERY", defaultGateSettings.every),
    passes: Number.isInteger(passes) && passes > 0 ? passes : defaultGateSettings.passes,
  }
}
