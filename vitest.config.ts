import { statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"
import { defineConfig } from "vitest/config"

// The project's Node is the one npm ci installs (node_modules/.bin/node, 24): `npm test` and `npx vitest`
// put it first on PATH. Started otherwise (node_modules/.bin/vitest with an older node on PATH), every
// CLI test would fail on the older Node's missing features (issue 44): said at once instead.
const nodeMajor = Number(process.versions.node.split(".")[0])
if (nodeMajor < 24) {
  throw new Error(
    `vitest is running on Node ${process.version} (${process.execPath}); the project runs on Node 24 from npm ci: ` +
      "run `npm test`, `npx vitest`, or `PATH=$PWD/node_modules/.bin:$PATH vitest`",
  )
}

// How the suite runs in minutes on a 2-core machine (issue 30, docs/testing.md "How long it takes"):
// the server and fault files mostly wait (on a gate's settle, a lease, an outage they hold for 20 s),
// so several run at once, and the ones that wait longest start first, the CPU-bound core and shell
// files filling the gaps. Every file keeps its own bus prefix, store schema and private servers.
const workers = Number(process.env["MESH_TEST_WORKERS"] ?? 4)

/** The files that wait longest (docs/testing.md): started first, in this order. */
const longestFirst = [
  "integration/standings",
  "integration/delivery-held",
  "integration/plans-verbs",
  "integration/gate-plans",
  "faults/serve-odd-words",
  "faults/serve-store-outage",
  "integration/delivery",
  "integration/gate",
  "faults/serve-bus-faults",
  "integration/serve-outage",
  "integration/serve-lease",
  "faults/standings-forget",
  "faults/provider-outbox",
].map((f) => `/test/${f}.test.ts`)
const projectRank: Record<string, number> = { servers: 0, build: 1, shells: 2, core: 3 }

class WaitingFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>) {
    const rank = (s: TestSpecification) => {
      const i = longestFirst.findIndex((f) => s.moduleId.endsWith(f))
      return i === -1 ? longestFirst.length : i
    }
    const size = (s: TestSpecification) => statSync(s.moduleId).size
    return [...files].sort(
      (a, b) =>
        (projectRank[a.project.name] ?? 3) - (projectRank[b.project.name] ?? 3) ||
        rank(a) - rank(b) ||
        size(b) - size(a),
    )
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: workers,
    sequence: { sequencer: WaitingFirst },
    globalSetup: ["test/support/build-bundle.ts"],
    // Every CLI a test starts is a node process loading ~300 TypeScript files: with Node's compile
    // cache (as the shipped entry, shells/src/cli/mesh-controller.js, turns on) a start after the
    // first reads them compiled, half the CPU.
    env: { NODE_COMPILE_CACHE: join(tmpdir(), "node-compile-cache") },
    // One module graph per worker in every project: a file's fresh process and imports cost ~1.3 s of
    // CPU, ~80 s a run. Safe here because no test changes what another imports: each names its own
    // bus prefix, store schema and servers (uniqueNames), and none stubs a module or the environment.
    projects: [
      // Pure functions over immutable values: one module graph per worker is safe, and saves
      // importing the core once per file.
      { extends: true, test: { name: "core", include: ["test/core/**/*.test.ts"], isolate: false } },
      { extends: true, test: { name: "shells", include: ["test/shells/**/*.test.ts"], isolate: false } },
      // What is built from the sources and shipped: the CLI's bundle, the core's package, its API
      // reference. Each builds or packs first (tens of seconds of CPU), so `npm test` runs them and the
      // inner loop on the core and shells (`npm run test:quick`) does not.
      { extends: true, test: { name: "build", include: ["test/build/**/*.test.ts"], isolate: false } },
      {
        extends: true,
        test: {
          name: "servers",
          include: ["test/integration/**/*.test.ts", "test/faults/**/*.test.ts"],
          isolate: false,
        },
      },
    ],
  },
})
