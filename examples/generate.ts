// Writes the shipped example logs. Run `npm run examples`; a test checks the shipped files are
// what this script writes, so they are never edited by hand.
import { writeFileSync } from "node:fs"
import { gzipSync } from "node:zlib"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { drive } from "./drive.ts"
import { gateCrashLoop } from "./gate-crash-loop.ts"
import { issue179Day } from "./issue-179.ts"
import { releaseDay } from "./release-day.ts"
import { smallDay } from "./small.ts"

const here = dirname(fileURLToPath(import.meta.url))

export const examples = {
  "small.facts.jsonl": () => drive(smallDay),
  "identity-issue-179.facts.jsonl.gz": () => drive(issue179Day),
  "gate-crash-loop.facts.jsonl": gateCrashLoop,
  "release-day.facts.jsonl": releaseDay,
} as const

export const textOf = (name: keyof typeof examples): string => `${[...examples[name]()].join("\n")}\n`

if (import.meta.main) {
  for (const name of Object.keys(examples) as Array<keyof typeof examples>) {
    const text = textOf(name)
    const file = join(here, name)
    writeFileSync(file, name.endsWith(".gz") ? gzipSync(text, { level: 9 }) : text)
    console.log(`wrote ${file}: ${text.split("\n").length - 1} lines`)
  }
}
