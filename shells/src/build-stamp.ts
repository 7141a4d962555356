// Which build this process is, as the one-file build stamps it (scripts/build-binary.ts puts a module
// with the build and the commit in place of this one). Run from a checkout, it was built by no one:
// `--version` says so, and `serve` is told its build by MESH_BUILD alone.

interface Stamp {
  readonly build: string
  readonly commit: string
}
const unstamped = (): Stamp | undefined => undefined

/** The build id and the commit it was built from; undefined in a checkout. */
export const builtAs = unstamped()

/** The project's version, as package.json names it. */
export const projectVersion = "0.1.0"

/** What `--version` prints: the version, and the build and commit when stamped. */
export const versionLine = (): string =>
  builtAs === undefined
    ? `${projectVersion} (run from a checkout: no build stamped)`
    : `${projectVersion} build ${builtAs.build} commit ${builtAs.commit}`
