// Issue 27: a recording that differs from the day once said it did not. With `serve --record F` and an
// open plan, PostgreSQL stopped, `plans pause ID` refused (exit 3), the store back and the plan passed,
// `simulate F` replayed the refused verb as done and left the plan open, and said "0 acts differ".
// Now the refusal is in the recording with the answer the live controller got, and the replay under
// `--strict` reproduces it: refused, the plan passed, nothing inferred. The refusal comes while the
// operator waits: the store's client once waited up to 20 s between tries (store/postgres.ts
// reconnectBackoff), and under CI's load the verb's own 20 s ran out. Private servers with passwords.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inWorld, type PrivateMesh, startPrivateMesh } from "../support/private-controller.ts"
import { eventually } from "../support/servers.ts"

let mesh: PrivateMesh
const dir = mkdtempSync(join(tmpdir(), "mesh-core-verb-outage-"))
beforeAll(async () => {
  mesh = await startPrivateMesh()
}, 60_000)
afterAll(() => {
  mesh?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("a verb while the store is stopped", () => {
  it("refused live, in the recording as refused, and replayed refused: simulate --strict exits 0", async () => {
    await inWorld(
      mesh,
      "verbrefused",
      async (w) => {
        expect(w.cli(["mesh", "apply", join(import.meta.dirname, "../../examples/mesh.json")]).code).toBe(0)
        writeFileSync(join(dir, "key.pem"), w.cli(["identity"]).out)
        const recording = join(dir, "verb-refused.jsonl")
        const serve = await w.serve(["--record", recording])
        const engine = w.start([
          "node-engine",
          "--simulate",
          "hq-3",
          "--trust-key",
          join(dir, "key.pem"),
          "--state-every",
          "1s",
        ])
        await eventually("the engine hearing", () => (engine.output().includes("hearing") ? true : undefined), 30_000)
        expect(w.cli(["push"]).code).toBe(0)
        const release = w.cli(["release", "letta", "--build", "letta-204", "--commit", "5e1f0c2a9b", "--first", "hq-3"])
        expect(release.code, release.err).toBe(0)
        mesh.pg.halt()
        let pause: ReturnType<typeof w.cli>
        const asked = Date.now()
        try {
          pause = w.cli(["plans", "pause", "letta-204", "--why", "looks odd", "--as", "ana"])
        } finally {
          mesh.pg.start()
        }
        const answeredIn = Date.now() - asked
        expect(pause.code, `${pause.out}${pause.err}\n${serve.output()}`).toBe(3)
        expect(pause.out + pause.err).toContain("plan letta-204 cannot be read, so nothing is done")
        await eventually(
          "the plan passed",
          () => (w.cli(["plans"]).out.includes("letta letta-204, passed") ? true : undefined),
          90_000,
        ).catch((e) => {
          throw new Error(`${e.message}\n${serve.output()}`)
        })
        await serve.stop()
        const replayed = w.cli(["simulate", recording, "--strict"])
        expect(replayed.code, replayed.out.split("\n").slice(-6).join("\n") + replayed.err).toBe(0)
        expect(replayed.out).toContain("plan letta-204 cannot be read, so nothing is done")
        expect(replayed.out).toMatch(/0 inferred, 0 differed, 0 unasked/)
        console.log(`a verb with the store stopped: refused in ${answeredIn} ms, replayed refused`)
      },
      { MESH_GATE_EVERY: "2s", MESH_GATE_SETTLE: "8s", MESH_GATE_BOUND: "2m", MESH_GATE_PASSES: "2" },
    )
  }, 180_000)
})

describe("a verb while the store is frozen", () => {
  it("refused within the operator's wait (every read bounded, the gate's turn waited for 8 s at most), and replayed as it was", async () => {
    await inWorld(
      mesh,
      "verbfrozen",
      async (w) => {
        expect(w.cli(["mesh", "apply", join(import.meta.dirname, "../../examples/mesh.json")]).code).toBe(0)
        writeFileSync(join(dir, "key-f.pem"), w.cli(["identity"]).out)
        const recording = join(dir, "verb-frozen.jsonl")
        const serve = await w.serve(["--record", recording])
        const engine = w.start([
          "node-engine",
          "--simulate",
          "hq-3",
          "--trust-key",
          join(dir, "key-f.pem"),
          "--state-every",
          "1s",
        ])
        await eventually("the engine hearing", () => (engine.output().includes("hearing") ? true : undefined), 30_000)
        expect(w.cli(["push"]).code).toBe(0)
        const release = w.cli(["release", "letta", "--build", "letta-204", "--commit", "5e1f0c2a9b", "--first", "hq-3"])
        expect(release.code, release.err).toBe(0)
        // A frozen store never answers and never fails: before reads were bounded, the verb waited
        // out its 20 s and said the controller did not answer.
        mesh.pg.freeze()
        let pause: ReturnType<typeof w.cli>
        const asked = Date.now()
        try {
          pause = w.cli(["plans", "pause", "letta-204", "--why", "looks odd", "--as", "ana"])
        } finally {
          mesh.pg.thaw()
        }
        const answeredIn = Date.now() - asked
        expect(pause.code, `${pause.out}${pause.err}\n${serve.output()}`).toBe(3)
        // Either honest refusal, whichever the freeze met first: the verb's own read of the plan ran
        // past its bound (recorded, and replayed so), or a judging stuck on a write held the gate's turn
        // past the verb's wait (nothing of the verb asked or recorded). Never "did not answer".
        const said = pause.out + pause.err
        const unread = said.includes("plan letta-204 cannot be read, so nothing is done")
        const turn = said.includes(
          "a judging has held the gate's turn for over 8 s (it waits on the store or the bus), so nothing is done: ask again",
        )
        expect(unread || turn, said).toBe(true)
        await eventually(
          "the plan passed",
          () => (w.cli(["plans"]).out.includes("letta letta-204, passed") ? true : undefined),
          90_000,
        ).catch((e) => {
          throw new Error(`${e.message}\n${serve.output()}`)
        })
        await serve.stop()
        const replayed = w.cli(["simulate", recording, "--strict"])
        expect(replayed.code, replayed.out.split("\n").slice(-6).join("\n") + replayed.err).toBe(0)
        if (unread) expect(replayed.out).toContain("plan letta-204 cannot be read, so nothing is done")
        console.log(
          `a verb with the store frozen: refused in ${answeredIn} ms (${unread ? "its read bounded" : "the gate's turn not come"}), replayed as it was`,
        )
      },
      { MESH_GATE_EVERY: "2s", MESH_GATE_SETTLE: "8s", MESH_GATE_BOUND: "2m", MESH_GATE_PASSES: "2" },
    )
  }, 180_000)
})
