// The core's size budget (issue 39): core/src holds at most 10,000 lines of code, non-blank and
// non-comment, counted as the before-stop hook counts them. The seeds' main.go reached 2,769 lines
// "because appending was always the cheapest next step"; a capability that adds here subtracts too.
// Prints the total, each area's share and the largest folder and file; exits 1 over the budget, or,
// while the core is still above it, over `--ceiling N`: the count it had when it last landed, so CI
// refuses any change that grows it and a change that shrinks it lowers the ceiling in .ci/run.
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

const budget = 10_000
const top = join(import.meta.dirname, "../core/src")

/** Lines that are neither blank nor comment: a line comment, or inside or opening a block comment. */
const linesOfCode = (text: string): number => {
  let n = 0
  let inBlock = false
  for (const line of text.split("\n")) {
    const s = line.trim()
    if (inBlock) inBlock = !s.includes("*/")
    else if (s === "" || s.startsWith("//")) continue
    else if (s.startsWith("/*")) inBlock = !s.includes("*/")
    else n++
  }
  return n
}

const files: Array<{ path: string; code: number; lines: number }> = []
const walk = (dir: string): void => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else if (e.name.endsWith(".ts")) {
      const text = readFileSync(p, "utf8")
      files.push({ path: relative(top, p), code: linesOfCode(text), lines: text.split("\n").length - 1 })
    }
  }
}
walk(top)

const total = files.reduce((s, f) => s + f.code, 0)
const byArea = new Map<string, number>()
const perFolder = new Map<string, number>()
for (const f of files) {
  const parts = f.path.split("/")
  const area = parts.length > 1 ? parts[0] : "(root)"
  byArea.set(area, (byArea.get(area) ?? 0) + f.code)
  const folder = parts.slice(0, -1).join("/") || "."
  perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1)
}
const [widest, widestCount] = [...perFolder].sort((a, b) => b[1] - a[1])[0] ?? [".", 0]
const longest = [...files].sort((a, b) => b.lines - a.lines)[0]

console.log(`core/src: ${total.toLocaleString("en")} lines of code, budget ${budget.toLocaleString("en")}`)
console.log(`  ${[...byArea].sort((a, b) => b[1] - a[1]).map(([a, n]) => `${a} ${n}`).join(", ")}`)
console.log(`  most files in one folder: core/src/${widest} (${widestCount}); longest file: ${longest?.path} (${longest?.lines} lines)`)
const at = process.argv.indexOf("--ceiling")
const ceiling = at === -1 ? budget : Math.max(budget, Number(process.argv[at + 1]))
if (!Number.isInteger(ceiling)) {
  console.error(`--ceiling takes a whole number of lines, not ${process.argv[at + 1]}`)
  process.exit(2)
}
if (total > ceiling) {
  const over = ceiling === budget ? "its budget" : `the ceiling it landed with (${ceiling.toLocaleString("en")})`
  console.error(`core/src is ${(total - ceiling).toLocaleString("en")} lines of code over ${over}: subtract as you add`)
  process.exit(1)
}
