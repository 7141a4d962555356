// The store's migrations: the .sql files beside this module. The one-file build
// (scripts/build-binary.ts) puts their texts in place of this module, so a binary carries them.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const migrationsDir = join(import.meta.dirname, "migrations")

/** Every file of the migrations directory, by name, with its text. */
export const migrationFiles = (): ReadonlyArray<{ readonly name: string; readonly text: string }> =>
  readdirSync(migrationsDir).map((name) => ({ name, text: readFileSync(join(migrationsDir, name), "utf8") }))
