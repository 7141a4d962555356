// Every command started from one bundle of the CLI rather than ~300 modules. Loading Effect, the
// core and the CLI module by module took ~0.45 s of a controller's day of 2.7 s, a sixth of it,
// before the first line was read (issue 11); a `status` or a `plans` spent 1.2 s of CPU of its 1.8 s
// on it, and the test suite starts ~300 commands (issue 30). Bundled, a start takes a third of that
// CPU and ~70 MiB less.
//
// The bundle is a cache, never a second source: it is built by rolldown from the same sources the
// first time they are run, kept under a key made of their content (every file under core/src and
// shells/src, the lockfile, Node's version), and built again when any of them changes. A bundle that
// cannot be built leaves the CLI on the sources themselves, which say and decide the same.
// Plain JavaScript, like the entry, so that choosing costs no type stripping.
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { pathToFileURL } from "node:url"

const checkout = join(import.meta.dirname, "../../..")
const entry = "shells/src/cli/main.ts"
/** Bundles of older sources kept beside the newest, for a replay still running on one. */
const keptOlder = 2

/** Every file the bundle is made of, by its path in the checkout, in a fixed order. */
const sourceFiles = (top) => {
  const files = ["package-lock.json"]
  for (const dir of ["core/src", "shells/src"]) {
    for (const e of readdirSync(join(top, dir), { recursive: true, withFileTypes: true })) {
      if (e.isFile()) files.push(relative(top, join(e.parentPath, e.name)))
    }
  }
  return files.sort()
}

/** What the bundle is made of, as one key: each source's path and content, in a fixed order. */
export const bundleKey = (top = checkout) => {
  const hash = createHash("sha256").update(process.version)
  for (const file of sourceFiles(top)) hash.update(`\0${file}\0`).update(readFileSync(join(top, file)))
  return hash.digest("hex").slice(0, 32)
}

/**
 * The key, read again only when a source was written since it was last read: reading and hashing
 * every source was ~40 ms of each start, a tenth of a `status`. Each file's size and time of its
 * last write stand for its content here (a write always moves the time); the key itself is made of
 * content only, so a file touched but unchanged finds the same bundle.
 */
export const currentKey = (cache, top = checkout) => {
  const files = sourceFiles(top)
  const stamp = createHash("sha256").update(process.version)
  for (const file of files) {
    const s = statSync(join(top, file))
    stamp.update(`\0${file}\0${s.size}\0${s.mtimeMs}`)
  }
  const seen = stamp.digest("hex")
  const kept = join(cache, "key")
  try {
    const [was, key] = readFileSync(kept, "utf8").split(" ")
    if (was === seen && key !== undefined && key.length === 32) return key
  } catch {
    // none kept yet
  }
  const key = bundleKey(top)
  try {
    mkdirSync(cache, { recursive: true })
    const aside = `${kept}-${process.pid}`
    writeFileSync(aside, `${seen} ${key}`)
    renameSync(aside, kept)
  } catch {
    // read again at the next start
  }
  return key
}

/**
 * A source that finds its neighbours by its own directory (the store's migrations beside
 * postgres.ts) finds them from the bundle as from the source: each of the project's modules keeps
 * its `import.meta.dirname`, the directory of the file it was bundled from, which the key's content
 * ties to the bundle.
 */
const whereTheSourceIs = {
  name: "where-the-source-is",
  transform(code, id) {
    if (relative(checkout, id).startsWith("..") || id.includes("/node_modules/")) return null
    if (!code.includes("import.meta.dirname")) return null
    return code.replaceAll("import.meta.dirname", JSON.stringify(dirname(id)))
  },
}

const build = async (cache, key) => {
  const { rolldown } = await import("rolldown")
  // Built aside and renamed into place, so a bundle is whole or absent; two starts building at once
  // both build, and the second rename finds the first's bundle there.
  const aside = join(cache, `building-${key}-${process.pid}`)
  const bundle = await rolldown({
    input: join(checkout, entry),
    platform: "node",
    logLevel: "silent",
    plugins: [whereTheSourceIs],
  })
  try {
    await bundle.write({ dir: aside, format: "esm" })
    // Said to be ES modules, so Node loads each chunk once rather than compiling it to learn its format.
    writeFileSync(join(aside, "package.json"), `{ "type": "module" }\n`)
  } finally {
    await bundle.close()
  }
  try {
    renameSync(aside, join(cache, key))
  } catch {
    rmSync(aside, { recursive: true, force: true })
  }
  dropOlder(cache, key)
}

// Best effort: another start may be removing the same bundles, and the one just built is whole
// whatever happens here, so a failure to tidy must not send this start back to the sources.
const dropOlder = (cache, key) => {
  try {
    const older = readdirSync(cache)
      .filter((name) => name !== key && !name.startsWith("building-") && !name.startsWith("key"))
      .map((name) => ({ name, at: statSync(join(cache, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at)
    for (const { name } of older.slice(keptOlder)) rmSync(join(cache, name), { recursive: true, force: true })
  } catch {
    // tidied by the next build
  }
}

/**
 * The bundle's entry for the sources as they are now, built when missing; undefined when it cannot
 * be built (rolldown not installed, a cache that cannot be written), and then the sources are run.
 */
export const cliBundle = async (cache = join(checkout, "node_modules/.cache/mesh-controller")) => {
  try {
    const key = currentKey(cache, checkout)
    const main = join(cache, key, "main.js")
    if (!existsSync(main)) {
      mkdirSync(cache, { recursive: true })
      await build(cache, key)
    }
    return pathToFileURL(main).href
  } catch {
    return undefined
  }
}
