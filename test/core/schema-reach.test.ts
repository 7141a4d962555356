// Schema reach (novox/hq issue 352, seed 004): serve's three sentences at start, and the gate's rule
// that a controller's build that cannot read the store as it is is never put back.
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { firstIssue } from "@mesh-core/core/decoding"
import { type AnswerOf, runPure } from "@mesh-core/core/program"
import type { Readable } from "@mesh-core/core/outcome"
import { type Move, rollbackDecided } from "@mesh-core/core/gate/tick/rollback"
import {
  putBackOnlyIfItReads,
  type reachQuestions,
  RunningBuild,
  reachOf,
  readsTheStore,
  schemaReachAtStart,
  type StoreReach,
} from "@mesh-core/core/gate/tick/schema-reach"

type ReachAnswer = AnswerOf<typeof reachQuestions, "carried-reach">

/** Runs the program with scripted answers, keeping the questions it asked. */
const drive = (build: string | undefined, reach: ReachAnswer, record: { ok: true } | { ok: false; why: string }) => {
  const ran = runPure(schemaReachAtStart(build), (q) => (q.q === "carried-reach" ? reach : record))
  return { said: ran.result, asked: ran.exchanges.map((e) => e.question) }
}

const buildArb = fc.option(fc.constantFrom("", "controller-204", "controller-7f3a2c1"), { nil: undefined })
const reachArb: fc.Arbitrary<ReachAnswer> = fc.oneof(
  fc.integer({ min: 0, max: 9_999 }).map((value): ReachAnswer => ({ ok: true, value })),
  fc.constant<ReachAnswer>({ ok: false, why: "ENOENT: no such file or directory, scandir 'migrations'" }),
)
const recordArb = fc.oneof(
  fc.constant({ ok: true } as const),
  fc.constant({ ok: false, why: 'relation "schema_reach" does not exist' } as const),
)

describe("serve's three sentences about the store's schema", () => {
  it("not told which build: nothing asked, never put back; told: asks the reach, then records it, and says which happened", () => {
    fc.assert(
      fc.property(buildArb, reachArb, recordArb, (build, reach, record) => {
        const { said, asked } = drive(build, reach, record)
        if (build === undefined || build === "") {
          expect(asked).toEqual([])
          expect(said).toBe(
            "this process was not told which build it is (MESH_BUILD), so what it reads of the store's schema is not recorded, and a gate will never put it back",
          )
        } else if (!reach.ok) {
          expect(asked).toEqual([{ q: "carried-reach" }])
          expect(said).toBe(`what this build reads of the store's schema is not recorded: ${reach.why}`)
        } else if (!record.ok) {
          expect(asked).toEqual([{ q: "carried-reach" }, { q: "record-reach", build, reach: reach.value }])
          expect(said).toBe(`what this build (${build}) reads of the store's schema is not recorded: ${record.why}`)
        } else {
          expect(asked).toEqual([{ q: "carried-reach" }, { q: "record-reach", build, reach: reach.value }])
          // The seed's %04d.
          expect(said).toBe(
            `this build (${build}) reads the store's schema up to migration ${String(reach.value).padStart(4, "0")}; recorded`,
          )
        }
      }),
    )
  })

  it("a build's reach is the highest migration it carries", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9_999 })), (versions) => {
        const r = reachOf(versions)
        expect(versions.every((v) => v <= r)).toBe(true)
        expect(versions.length === 0 ? r === 0 : versions.includes(r)).toBe(true)
      }),
    )
  })
})

const factsArb: fc.Arbitrary<Readable<StoreReach>> = fc.oneof(
  fc
    .record({
      storeAt: fc.integer({ min: 0, max: 20 }),
      reach: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    })
    .map((value): Readable<StoreReach> => ({ ok: true, value })),
  fc.constant<Readable<StoreReach>>({ ok: false, why: "the store at postgres://… cannot be read: timeout" }),
)
const moduleArb = fc.constantFrom("controller", "letta", "node-engine", "node-tools")

describe("a build that cannot read the store as it is is never put back", () => {
  it("only a controller's build is held to the store, and then only one that recorded a reach at or past the store's migration", () => {
    fc.assert(
      fc.property(moduleArb, factsArb, (module, facts) => {
        const r = readsTheStore(module, "controller-203", facts)
        const known = facts.ok && facts.value.reach !== undefined
        expect(r.ok).toBe(module !== "controller" || (known && facts.ok && facts.value.reach! >= facts.value.storeAt))
      }),
    )
  })

  it("through the rollback: a controller's previous build is restored only when it reads the store as it is; refused, the rollback says why", () => {
    const move: Move = {
      module: "controller",
      machines: ["hq-1"],
      build: "controller-204",
      previous: "a71c3d09e4",
      commit: "5e1f0c2a9b",
    }
    fc.assert(
      fc.property(moduleArb, factsArb, (module, facts) => {
        const previous = putBackOnlyIfItReads(
          module,
          { found: true, build: "controller-203", commit: "a71c3d09e4" },
          facts,
        )
        const d = runPure(
          rollbackDecided({ ...move, module }, "the controller did not renew its lease", false, {
            // biome-ignore lint/correctness/useYield: a fact given, asked of nobody
            recorded: function* () {
              return "recorded" as const
            },
            // biome-ignore lint/correctness/useYield: a fact given, asked of nobody
            previousBuild: function* () {
              return previous
            },
          }),
          () => undefined,
        ).result
        const reads =
          module !== "controller" ||
          (facts.ok && facts.value.reach !== undefined && facts.value.reach >= facts.value.storeAt)
        expect(d !== "ended" && d.rollback === "restore").toBe(reads)
        if (!reads)
          expect(d !== "ended" && d.rollback === "not-rolled-back" && d.said.startsWith("NOT put back: ")).toBe(true)
      }),
    )
    expect(
      putBackOnlyIfItReads(
        "controller",
        { found: true, build: "controller-203", commit: "a71c3d0" },
        { ok: true, value: { storeAt: 6, reach: 4 } },
      ),
    ).toEqual({
      found: false,
      why: "build controller-203 reads the store's schema up to migration 0004, and the store is at migration 0006 now: it cannot read the store as it is",
    })
    // Nothing found stays what it was.
    expect(
      putBackOnlyIfItReads(
        "controller",
        { found: false, why: "no earlier build" },
        { ok: true, value: { storeAt: 6, reach: 9 } },
      ),
    ).toEqual({ found: false, why: "no earlier build" })
  })
})

describe("the words a refused rollback and serve's setting say", () => {
  it("each reason a controller's build may not be put back is said whole, with the build and the migrations", () => {
    expect(readsTheStore("controller", "controller-203", { ok: false, why: "timeout" })).toEqual({
      ok: false,
      why: "what build controller-203 reads of the store's schema cannot be read: timeout",
    })
    expect(
      readsTheStore("controller", "controller-203", { ok: true, value: { storeAt: 6, reach: undefined } }),
    ).toEqual({
      ok: false,
      why:
        "build controller-203 never recorded which migration of the store it reads up to (it ran without MESH_BUILD), so whether it " +
        "can read the store as it is now (migration 0006) is not known",
    })
  })

  it("nothing found to put back stays what it was, whatever the store would say of it", () => {
    const none = { found: false, why: "no earlier build" } as const
    for (const facts of [
      { ok: false, why: "timeout" } as const,
      { ok: true, value: { storeAt: 6, reach: undefined } } as const,
      { ok: true, value: { storeAt: 6, reach: 2 } } as const,
    ]) {
      expect(putBackOnlyIfItReads("controller", none, facts)).toEqual(none)
    }
  })

  it("MESH_BUILD is a build id without spaces; empty is not told, and read as such", () => {
    const decode = Schema.decodeUnknownExit(RunningBuild)
    for (const good of ["", "controller-204", "7f3a2c1", "a"])
      expect(decode(good)).toMatchObject({ _tag: "Success", value: good })
    for (const bad of ["controller 204", " controller-204", "controller-204 ", "controller-204\n", "\tx", " "]) {
      expect(firstIssue(decode(bad)), JSON.stringify(bad)).toEqual({
        field: "(line)",
        problem: "a build id, without spaces",
      })
    }
  })
})
