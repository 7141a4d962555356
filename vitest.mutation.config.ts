import { BaseSequencer, type TestSpecification } from "vitest/node"
import { defineConfig } from "vitest/config"

/**
 * A mutant's covering files in the order most likely to kill it soonest: the files that failed in the
 * run before (a mutant's neighbours are mostly killed by the same file), then the quickest. Stryker
 * stops a mutant's run at its first failing test, so a killer found first spares every file after
 * it; vitest's own order runs the longest first.
 */
class KillersFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>) {
    const cache = this.ctx.cache
    const results = new Map(files.map((s) => [s, cache.getTestSpecificationResult(s)]))
    const failedFirst = (s: TestSpecification) => (results.get(s)?.failed === true ? 0 : 1)
    const duration = (s: TestSpecification) => results.get(s)?.duration ?? 0
    return [...files].sort((a, b) => failedFirst(a) - failedFirst(b) || duration(a) - duration(b))
  }
}

// The suites a mutation run (stryker.config.json) tests the core against: the rules, the models and
// the shell tests that need no server. The integration and fault suites need NATS and PostgreSQL, and
// the shell tests that only start the CLI run the core in a child process, where the mutant
// switched on in the test process never reaches: they would only slow every run (a start is ~0.2 s
// of CPU, and the first rebuilds the bundle of the mutated sources) without killing a mutant — or
// "kill" one only because the child ran the original code, which says nothing of the tests.
export default defineConfig({
  test: {
    include: ["test/core/**/*.test.ts", "test/shells/**/*.test.ts"],
    exclude: [
      "test/shells/simulate-cli.test.ts",
      "test/shells/simulate-page.test.ts",
      "test/shells/simulate-sweep.test.ts",
      "test/shells/simulate-controller.test.ts",
      "test/shells/refused-at-start-cli.test.ts",
      "test/shells/launcher.test.ts",
      // It measures the process's memory held in buffers, which in one module graph shared by every
      // file (isolate: false, below) counts what earlier files left running; lines.ts is a shell,
      // and the one core function it reaches (errorText) is covered by other files.
      "test/shells/lines.test.ts",
    ],
    setupFiles: ["test/mutation/stop-at-failure.ts"],
    // One module graph for every mutant's run: each run re-imported its files' graphs, ~0.2 s a file
    // and a mutant ran ~28 files. Sound because Stryker switches a mutant on at run time (a global
    // the instrumented code reads), and code that runs at load is a static mutant, left out of the
    // fresh run (`--ignoreStatic`). Under isolation those were worse than left out: a top-level
    // `const f = () => …` chooses its mutant at load, before the runner switches one on, so its
    // mutants "survived" without ever having run.
    isolate: false,
    sequence: { sequencer: KillersFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
