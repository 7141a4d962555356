// core/ is pure: no I/O, no clock, no randomness, no Effect runtime. Types and Schema from effect
// are allowed; so is Exit, which is a value (decodeUnknownExit answers one).
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "../../core/src")
const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : []
  })

const allowedEffect = new Set(["Schema", "SchemaIssue", "Exit"])
// @noble/hashes is pure (no I/O, no randomness on these paths) and audited; the core hashes with it (issue 11).
const allowedModules = new Set(["@noble/hashes/sha2.js", "@noble/hashes/hmac.js", "@noble/hashes/utils.js"])
const forbiddenCalls = [
  /Date\.now\(/,
  /new Date\(\)/,
  /Math\.random\(/,
  /performance\.now\(/,
  /\bprocess\./,
  /setTimeout\(/,
  /setInterval\(/,
  /\brequire\(/,
  /import\(/,
]

describe("core purity", () => {
  const sources = files(root)
  it("finds the core's sources", () => expect(sources.length).toBeGreaterThan(5))
  for (const file of sources) {
    const name = relative(root, file)
    it(`${name} imports nothing effectful and reads no clock or randomness`, () => {
      const text = readFileSync(file, "utf8")
      for (const m of text.matchAll(/^import\s+(type\s+)?(.*?)\s+from\s+["']([^"']+)["']/gms)) {
        const [, typeOnly, what, from] = m
        if (from!.startsWith(".")) {
          // A room of an area (gate/judging/) reaches its area's root by ../../, never past core/src.
          expect(relative(root, resolve(dirname(file), from!)), `${name} reaches outside core/src`).not.toMatch(/^\.\./)
          continue
        }
        if (allowedModules.has(from!)) continue
        // A module of effect's by its own path (issue 11: the `effect` index loads all of Effect,
        // ~8 MiB more for `simulate`), imported whole under its own name.
        const byPath = /^effect\/(\w+)$/.exec(from!)
        if (byPath !== null) {
          expect(allowedEffect.has(byPath[1]!), `${name} imports ${from}`).toBe(true)
          expect(what, `${name} imports ${from} under another name`).toBe(`* as ${byPath[1]}`)
          continue
        }
        expect(from, `${name} imports ${from}`).toBe("effect")
        if (typeOnly) continue
        const names = what!
          .replace(/[{}]/g, "")
          .split(",")
          .map((n) => n.trim().replace(/^type\s+/, ""))
          .filter(Boolean)
        for (const n of names) {
          if (what!.includes(`type ${n}`)) continue
          expect(allowedEffect.has(n), `${name} imports ${n} from effect`).toBe(true)
        }
      }
      for (const call of forbiddenCalls) expect(text, `${name} calls ${call}`).not.toMatch(call)
    })
  }
})
