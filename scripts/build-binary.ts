// The controller as one file to install (issue 44): `npm run build:binary` writes dist/mesh-controller,
// a Node 24 single executable application (the node binary npm ci installed, with the CLI injected),
// which runs every command on a machine with no Node and no node_modules.
//
// 1. rolldown bundles the CLI (shells/src/cli/main.ts) and everything it imports into one CommonJS
//    script, the form Node 24's single executable applications run; two modules are put in place of
//    their checkout versions: the store's migrations (their texts, so the file carries them) and the
//    build stamp (the build id and the commit, for --version and serve's schema reach).
// 2. `node --experimental-sea-config` makes the blob, with simulate's memory flags (./mesh-controller's)
//    as the executable's own arguments.
// 3. postject injects the blob into a copy of that node binary (its debug symbols stripped first when
//    `strip` is at hand: ~18 MiB less, its dynamic symbols kept).
//
// The build id is MESH_BUILD at build time when set (the deploy's own name), else
// mesh-controller-VERSION-COMMIT12; the commit is the checkout's HEAD, marked -dirty when the tree
// has changes. Usage: node scripts/build-binary.ts [--out FILE]
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { inject } from "postject"
import { rolldown } from "rolldown"

const top = join(import.meta.dirname, "..")
const { values } = parseArgs({ options: { out: { type: "string" } } })
const out = resolve(values.out ?? join(top, "dist/mesh-controller"))
const work = join(dirname(out), `.build-${process.pid}`)
const started = performance.now()

const git = (...args: Array<string>) => execFileSync("git", args, { cwd: top, encoding: "utf8" }).trim()
const commit = `${git("rev-parse", "HEAD")}${git("status", "--porcelain") === "" ? "" : "-dirty"}`
const version = JSON.parse(readFileSync(join(top, "package.json"), "utf8")).version
const build = process.env["MESH_BUILD"] || `mesh-controller-${version}-${commit.slice(0, 12)}`
if (/\s/.test(build)) throw new Error(`MESH_BUILD ${JSON.stringify(build)}: a build id, without spaces`)

const migrationsDir = join(top, "shells/src/store/migrations")
const migrations = readdirSync(migrationsDir).map((name) => ({
  name,
  text: readFileSync(join(migrationsDir, name), "utf8"),
}))

/** The modules the one file carries in place of their checkout versions. */
const replaced: Record<string, string> = {
  "shells/src/store/migration-files.ts": `export const migrationFiles = () => ${JSON.stringify(migrations)}\n`,
  "shells/src/build-stamp.ts": readFileSync(join(top, "shells/src/build-stamp.ts"), "utf8").replace(
    "const unstamped = (): Stamp | undefined => undefined",
    `const unstamped = (): Stamp | undefined => (${JSON.stringify({ build, commit })})`,
  ),
}

mkdirSync(work, { recursive: true })
try {
  const bundle = await rolldown({
    input: join(top, "shells/src/cli/main.ts"),
    platform: "node",
    logLevel: "silent",
    plugins: [
      {
        name: "one-file",
        load(id) {
          for (const [file, code] of Object.entries(replaced)) if (id === join(top, file)) return code
          return null
        },
      },
    ],
  })
  await bundle.write({ file: join(work, "main.cjs"), format: "cjs", codeSplitting: false })
  await bundle.close()

  writeFileSync(
    join(work, "sea.json"),
    JSON.stringify({
      main: join(work, "main.cjs"),
      output: join(work, "blob"),
      disableExperimentalSEAWarning: true,
      // ./mesh-controller's flags for a replay (issue 11): flat memory over a long log, gc() at hand.
      execArgv: ["--max-semi-space-size=8", "--heap-growing-percent=100", "--v8-pool-size=1", "--expose-gc"],
    }),
  )
  const node = join(top, "node_modules/node/bin/node")
  execFileSync(node, ["--experimental-sea-config", join(work, "sea.json")], { stdio: "ignore" })
  const exe = join(work, "mesh-controller")
  copyFileSync(node, exe)
  if (spawnSync("strip", [exe], { stdio: "ignore" }).status !== 0) copyFileSync(node, exe)
  await inject(exe, "NODE_SEA_BLOB", readFileSync(join(work, "blob")), {
    sentinelFuse: "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
  })
  chmodSync(exe, 0o755)
  renameSync(exe, out)
} finally {
  rmSync(work, { recursive: true, force: true })
}
console.log(`${out}: build ${build} commit ${commit}, in ${((performance.now() - started) / 1000).toFixed(1)} s`)
