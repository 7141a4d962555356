import { join } from "node:path"

/**
 * The CLI as a person starts it: the shipped entry, which runs every command from the bundle of the
 * sources (shells/src/cli/bundle.js). A test that starts ~300 commands spends a third of the CPU
 * it would on the sources, and tests the entry operators run.
 */
export const cliPath = join(import.meta.dirname, "../../shells/src/cli/mesh-controller.js")
