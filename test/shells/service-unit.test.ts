// The service unit (issue 44): `systemd-analyze verify` accepts deploy/mesh-controller.service (its
// ExecStart pointed at an executable that exists here), with the hardening and the SIGTERM handover
// the operator's guide promises; the environment file example names every setting of the core's table.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { settingTable } from "@mesh-core/core/controller/setting-table"
import { describe, expect, it } from "vitest"

const top = join(import.meta.dirname, "../..")
const unit = readFileSync(join(top, "deploy/mesh-controller.service"), "utf8")

describe("the service unit", () => {
  it("systemd-analyze verify accepts it, with nothing said", () => {
    const dir = mkdtempSync(join(tmpdir(), "mesh-core-unit-"))
    const file = join(dir, "mesh-controller.service")
    writeFileSync(file, unit.replace("ExecStart=/usr/local/bin/mesh-controller", `ExecStart=${process.execPath}`))
    const r = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" })
    expect(r.error, "systemd-analyze is not installed (apt-get install systemd)").toBeUndefined()
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toBe("")
  })

  it("its own user, a read-only system, a state directory, restarts, and a stop that fits serve's 2 s handover", () => {
    const key = (k: string) => unit.match(new RegExp(`^${k}=(.*)$`, "m"))?.[1]
    expect(key("DynamicUser")).toBe("yes")
    expect(key("ProtectSystem")).toBe("strict")
    expect(key("StateDirectory")).toBe("mesh-controller")
    expect(key("Restart")).toBe("on-failure")
    expect(key("RestartPreventExitStatus")).toBe("2")
    expect(key("KillSignal")).toBe("SIGTERM")
    const stop = Number(key("TimeoutStopSec")?.replace(/s$/, ""))
    expect(stop).toBeGreaterThan(2)
    expect(key("ExecStart")).toBe("/usr/local/bin/mesh-controller serve")
  })

  it("the environment file example names every setting", () => {
    const example = readFileSync(join(top, "deploy/mesh-controller.env.example"), "utf8")
    for (const s of settingTable.filter((s) => s.name !== "MESH_BUNDLE"))
      expect(example, s.name).toMatch(new RegExp(`^#?${s.name}=`, "m"))
  })
})
