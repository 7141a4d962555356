// No secret printed, ever, as a newcomer meets it (issue 27): a connection URL that does not read is
// refused before anything is opened, with the part that is wrong named, exit 2, no stack trace, and
// no spelling of its password anywhere in what the command printed.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/servers.ts"

const secret = "Hunter2-Secret"
const dir = mkdtempSync(join(tmpdir(), "mesh-core-urls-"))
const receives = join(dir, "contributions.json")
writeFileSync(receives, JSON.stringify({ given: [] }))

const printed = (r: { out: string; err: string }) => `${r.out}\n${r.err}`
const noSecret = (text: string) => {
  for (const f of [secret, encodeURIComponent(secret), "Secret"]) expect(text).not.toContain(f)
  expect(text).not.toMatch(/\n\s+at /)
}

describe("a connection URL that does not read", () => {
  const shapes: ReadonlyArray<readonly [string, string]> = [
    [`postgres://admin:${secret}/x@db/mesh`, "raw '/', '?' or '#'"],
    [`postgres://admin:${secret}#x@db/mesh`, "raw '/', '?' or '#'"],
    [`postgres://admin:${secret}%zz@db/mesh`, "'%' not followed by two hex digits"],
    [`admin:${secret}@db/mesh`, "has no scheme"],
    [`postgres://admin:${secret}@/mesh`, "names no host"],
  ]

  it("PROVIDER_ADMIN_URL: `provide postgres` refuses it naming the part, exit 2, and prints no password", () => {
    for (const [url, part] of shapes) {
      const r = runCli(["provide", "postgres", "--receives", receives, "--node", "hq-1"], {
        PROVIDER_ADMIN_URL: url,
      })
      expect(r.code, printed(r)).toBe(2)
      expect(printed(r)).toContain(`PROVIDER_ADMIN_URL: `)
      expect(printed(r)).toContain(part)
      noSecret(printed(r))
    }
  })

  it("DATABASE_URL and NATS_URL: refused before the store or the bus is opened, exit 2, no password", () => {
    const status = runCli(["status"], { DATABASE_URL: `postgres://admin:${secret}/x@db/mesh` })
    expect(status.code, printed(status)).toBe(2)
    expect(printed(status)).toContain("DATABASE_URL: the user or password holds a raw '/', '?' or '#'")
    noSecret(printed(status))
    const plans = runCli(["plans"], { NATS_URL: `nats://bus:${secret}@bus:99999` })
    expect(plans.code, printed(plans)).toBe(2)
    expect(printed(plans)).toContain("NATS_URL: its port is not a number from 1 to 65535")
    noSecret(printed(plans))
  })
})
