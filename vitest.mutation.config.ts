import { defineConfig } from "vitest/config"

// The suites a mutation run (stryker.config.json) tests the core against: the rules, the models and
// the shell tests that need no server. The integration and fault suites need NATS and PostgreSQL, and
// the simulate CLI's tests run the core in a child process, where the mutant switched on in the test
// process never reaches: they would only slow every run without killing a mutant.
export default defineConfig({
  test: {
    include: ["test/core/**/*.test.ts", "test/shells/**/*.test.ts"],
    exclude: ["test/shells/simulate-cli.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
