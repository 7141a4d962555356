// Every write to disk checked (issue 27): `serve --record` on a file system that fills up. Before, the
// log was torn mid-line, nothing was said, and `simulate` refused the log until the next start repaired
// it. Now the write that fails is said once, the log is cut back to its last whole line, the
// controller keeps deciding (every word kept), /readyz and `status` say the recording stopped, and the
// log as it stands replays. The file system is a tmpfs of this test's own, 48 KiB, mounted and removed here.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { alive, inWorld, type PrivateMesh, startPrivateMesh } from "../support/private-controller.ts"
import { eventually, runCli } from "../support/servers.ts"

let mesh: PrivateMesh
const small = mkdtempSync(join(tmpdir(), "mesh-core-full-"))
beforeAll(async () => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=48k", "tmpfs", small], { stdio: "pipe" })
  } catch (e) {
    throw new Error(`a 48 KiB tmpfs cannot be mounted at ${small} (this test needs root): ${String(e)}`)
  }
  mesh = await startPrivateMesh()
}, 60_000)
afterAll(() => {
  mesh?.stop()
  try {
    execFileSync("umount", [small], { stdio: "pipe" })
  } finally {
    rmSync(small, { recursive: true, force: true })
  }
})

describe("serve --record on a disk that fills up", () => {
  it("says it once, keeps a whole last line, decides on, and /readyz and status say the recording stopped", async () => {
    await inWorld(mesh, "fulldisk", async (w) => {
      const file = join(small, "controller.jsonl")
      const serve = await w.serve(["--record", file])
      await w.failingWords(0, 600)
      // Every word kept: the controller decided on after its recording stopped.
      await w.keptFailing(600).catch((e) => {
        throw new Error(`${e.message}\n${serve.output()}`)
      })
      // The recording is written beside the deciding: its refusal may be said after the last word is kept.
      const stopsSaid = () =>
        serve
          .output()
          .split("\n")
          .filter((l) => l.includes(`the recording in ${file} stopped: `))
      await eventually("the recording's stop said", () => (stopsSaid().length > 0 ? true : undefined)).catch((e) => {
        throw new Error(`${e.message}\n${serve.output()}`)
      })
      const stops = stopsSaid()
      expect(stops, serve.output()).toHaveLength(1)
      expect(stops[0]).toMatch(/ENOSPC|no space/i)
      expect(stops[0]).toContain("it ends at its last whole line, and the controller decides on without recording")
      const text = readFileSync(file, "utf8")
      expect(text.length).toBeGreaterThan(0)
      expect(text.endsWith("\n")).toBe(true)
      // The log as it stands reads and replays, without the repair a next start would make.
      const replayed = runCli(["simulate", file], {})
      expect(replayed.code, replayed.err).toBe(0)
      const port = /\/readyz on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.output())?.[1]
      expect(port, serve.output()).toBeDefined()
      const readyz = await eventually(
        "/readyz saying the recording stopped",
        async () => {
          const body = await (await fetch(`http://127.0.0.1:${port}/readyz`)).text()
          return body.includes("note: the recording in") ? body : undefined
        },
        15_000,
      )
      expect(readyz).toContain(`note: the recording in ${file} stopped: `)
      // And `status`, another process, from the lease record the holder renews.
      const status = await eventually(
        "status saying the recording stopped",
        () => {
          const out = w.cli(["status"]).out
          return out.includes("it says: the recording in") ? out : undefined
        },
        15_000,
      )
      expect(status).toContain(`it says: the recording in ${file} stopped: `)
      expect(alive(serve)).toBe(true)
    })
  }, 180_000)
})
