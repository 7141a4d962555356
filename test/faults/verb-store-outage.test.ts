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

const gate = { MESH_GATE_EVERY: "2s", MESH_GATE_SETTLE: "8s", MESH_GATE_BOUND: "2m", MESH_GATE_PASSES: "2" }

/**
 * A recording serve judging letta-204 on a simulated hq-3; `fault` and `heal` put the store out and
 * back around a person's `plans pause`. Answers the verb's outcome, how long it took, and, once the
 * plan passed and serve stopped, the strict replay of the recording.
 */
const verbDuringAnOutage = async (
  w: Parameters<Parameters<typeof inWorld>[2]>[0],
  name: string,
  fault: () => void,
  heal: () => void,
) => {
  expect(w.cli(["mesh", "apply", join(import.meta.dirname, "../../examples/mesh.json")]).code).toBe(0)
  const key = join(dir, `${name}.pem`)
  writeFileSync(key, w.cli(["identity"]).out)
  const recording = join(dir, `${name}.jsonl`)
  const serve = await w.serve(["--record", recording])
  const engine = w.start(["node-engine", "--simulate", "hq-3", "--trust-key", key, "--state-every", "1s"])
  await eventually("the engine hearing", () => (engine.output().includes("hearing") ? true : undefined), 30_000)
  expect(w.cli(["push"]).code).toBe(0)
  const release = w.cli(["release", "letta", "--build", "letta-204", "--commit", "5e1f0c2a9b", "--first", "hq-3"])
  expect(release.code, release.err).toBe(0)
  fault()
  let pause: ReturnType<typeof w.cli>
  const asked = Date.now()
  try {
    pause = w.cli(["plans", "pause", "letta-204", "--why", "looks odd", "--as", "ana"])
  } finally {
    heal()
  }
  const answeredIn = Date.now() - asked
  expect(pause.code, `${pause.out}${pause.err}\n${serve.output()}`).toBe(3)
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
  return { said: pause.out + pause.err, answeredIn, replayed: replayed.out }
}

describe("a verb while the store is stopped", () => {
  it("refused live, in the recording as refused, and replayed refused: simulate --strict exits 0", async () => {
    await inWorld(
      mesh,
      "verbrefused",
      async (w) => {
        const v = await verbDuringAnOutage(w, "verb-refused", mesh.pg.halt, mesh.pg.start)
        expect(v.said).toContain("plan letta-204 cannot be read, so nothing is done")
        expect(v.replayed).toContain("plan letta-204 cannot be read, so nothing is done")
        expect(v.replayed).toMatch(/0 inferred, 0 differed, 0 unasked/)
        console.log(`a verb with the store stopped: refused in ${v.answeredIn} ms, replayed refused`)
      },
      gate,
    )
  }, 180_000)
})

describe("a verb while the store is frozen", () => {
  it("refused within the operator's wait (every read bounded, the gate's turn waited for 8 s at most), and replayed as it was", async () => {
    await inWorld(
      mesh,
      "verbfrozen",
      async (w) => {
        // A frozen store never answers and never fails: before reads were bounded, the verb waited
        // out its 20 s and said the controller did not answer.
        const v = await verbDuringAnOutage(w, "verb-frozen", mesh.pg.freeze, mesh.pg.thaw)
        // Either honest refusal, whichever the freeze met first: the verb's own read of the plan ran
        // past its bound (recorded, and replayed so), or a judging stuck on a write held the gate's turn
        // past the verb's wait (nothing of the verb asked or recorded). Never "did not answer".
        const unread = v.said.includes("plan letta-204 cannot be read, so nothing is done")
        const turn = v.said.includes(
          "a judging has held the gate's turn for over 8 s (it waits on the store or the bus), so nothing is done: ask again",
        )
        expect(unread || turn, v.said).toBe(true)
        if (unread) expect(v.replayed).toContain("plan letta-204 cannot be read, so nothing is done")
        console.log(
          `a verb with the store frozen: refused in ${v.answeredIn} ms (${unread ? "its read bounded" : "the gate's turn not come"}), replayed as it was`,
        )
      },
      gate,
    )
  }, 180_000)
})
