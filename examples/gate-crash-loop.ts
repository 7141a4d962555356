// A build that applies and then crash-loops on its first machine: letta 5e1f0c2 sent to hq-3 at
// 10:00; hq-3 reports it applied; its engine states letta-app starting, healthy once, then
// unhealthy on every statement after (exit 137, a crash loop). The runner judges every 40s. This is
// the log such a rollout records; `simulate` replays it.

const at = (clock: string): string => `2026-11-20T${clock}.000Z`
const seconds = (t: number): string => {
  const h = 10 + Math.floor(t / 3600)
  const m = Math.floor((t % 3600) / 60)
  const s = t % 60
  return at(`${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`)
}

export function* gateCrashLoop(): Generator<string> {
  yield JSON.stringify({
    format: "mesh-core.facts", version: 1, area: "gate",
    gate: {
      plan: "plan-0142", module: "letta", build: "letta-204", commit: "5e1f0c2a9b", previous: "a71c3d09e4", machines: ["hq-3"],
      manifests: { letta: { tools: [], deliveredVersions: [] } },
    },
    settings: { settle: "2m0s", bound: "10m0s", every: "40s", passes: 3 },
    rollback: { unchanged: false, verdictKept: false, previousBuild: { build: "letta-203", commit: "a71c3d09e4" } },
  })
  const lines: Array<{ t: number; line: Record<string, unknown> }> = []
  lines.push({ t: 0, line: { fact: "send", machines: ["hq-3"] } })
  lines.push({ t: 4, line: { fact: "report", machine: "hq-3", outcome: "applied", current: true } })
  lines.push({ t: 5, line: { fact: "discovery", served: { "hq-3": { runtime: true, tools: [] } } } })
  for (let t = 10; t <= 700; t += 10) {
    const state = t === 10 ? "starting" : t === 20 ? "healthy" : "unhealthy"
    const reason = state === "unhealthy" ? "exited with code 137, restarting (crash loop)" : undefined
    lines.push({ t, line: { fact: "statement", machine: "hq-3", resources: [{ resource: "letta-app", module: "letta", state, ...(reason ? { reason } : {}) }] } })
  }
  for (let t = 40; t <= 720; t += 40) lines.push({ t: t + 1, line: { fact: "judge" } })
  lines.sort((a, b) => a.t - b.t)
  for (const { t, line } of lines) yield JSON.stringify({ at: seconds(t), ...line })
}
