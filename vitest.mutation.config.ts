import { defineConfig } from "vitest/config"

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
    ],
    setupFiles: ["test/mutation/stop-at-failure.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
