// Built once before any test file starts, so the suite's first commands, started side by side by six
// workers, do not each build the same bundle (shells/src/cli/bundle.js).
// @ts-expect-error: plain JavaScript with no declarations, as the launcher must load no type stripper
import { cliBundle } from "../../shells/src/cli/bundle.js"

export default async () => {
  if ((await cliBundle()) === undefined) throw new Error("the CLI's bundle could not be built (is rolldown installed?)")
}
