// The core as a package another project installs (issue 29): `npm run build:core` emits the sources
// to JavaScript with declarations (core/tsconfig.build.json) and writes, beside them, the manifest
// whose `exports` name those built files. Node strips no types inside node_modules, so a package
// that exported `./src/*.ts`, as the workspace's own manifest does, could not be imported there.
// The workspace keeps importing the sources (its tests, the mutation run in place, the CLI's
// bundle): the package is made from them, never edited by hand. `npm pack core/dist/package`.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const core = join(import.meta.dirname, "../core")
const own = JSON.parse(readFileSync(join(core, "package.json"), "utf8"))
const manifest = {
  name: own.name,
  version: own.version,
  description: own.description,
  type: "module",
  exports: {
    ".": { types: "./library/index.d.ts", default: "./library/index.js" },
    "./*": { types: "./*.d.ts", default: "./*.js" },
  },
  dependencies: own.dependencies,
}
writeFileSync(join(core, "dist/package/package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
