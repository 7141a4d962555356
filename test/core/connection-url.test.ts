// No secret printed, ever (issue 27): every connection URL the project reads is read one way, refused
// by naming the part that is wrong, and printed one way. Stated over passwords of every shape — with
// '/', '@', '#', '%', '?', ':', unicode, spaces, empty — written as a person would (raw) and as the
// URL grammar asks (percent-encoded).
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  natsSchemes,
  postgresSchemes,
  printableUrl,
  readConnectionUrl,
  withoutSecrets,
} from "@mesh-core/core/connection-url"

const shapes = ["/", "@", "#", "%", "?", ":", "ä", "€", "😀", " ", "%zz", "a", "Z", "9", "-", "_", "."]
/** Long enough that finding it in a text means it was printed, not that it spells an ordinary word. */
const password = fc.array(fc.constantFrom(...shapes), { minLength: 6, maxLength: 14 }).map((p) => `S3cr${p.join("")}t`)
const urlOf = (pw: string, encode: boolean) =>
  `postgres://admin:${encode ? encodeURIComponent(pw) : pw}@db.example:5432/mesh?sslmode=require`

/** Whether a text carries the password in any spelling a person could read it back from. */
const carries = (text: string, pw: string) =>
  [pw, encodeURIComponent(pw), pw.replaceAll("%", "%25")].some((f) => text.includes(f))

describe("a connection URL, read one way", () => {
  it("percent-encoded, any password reads, and what is printed carries no spelling of it", () => {
    fc.assert(
      fc.property(password, (pw) => {
        const read = readConnectionUrl("PROVIDER_ADMIN_URL", urlOf(pw, true), postgresSchemes)
        if (!read.ok) throw new Error(read.problem)
        expect(read.printable).toBe("postgres://admin:***@db.example:5432/mesh?sslmode=require")
        expect(printableUrl(urlOf(pw, true))).toBe(read.printable)
        expect(carries(read.printable, pw)).toBe(false)
      }),
    )
  })

  it("written raw, it reads or is refused naming the part; neither the refusal nor anything printed of it carries the password", () => {
    fc.assert(
      fc.property(password, (pw) => {
        const url = urlOf(pw, false)
        const read = readConnectionUrl("PROVIDER_ADMIN_URL", url, postgresSchemes)
        const said = read.ok ? read.printable : read.problem
        expect(carries(said, pw)).toBe(false)
        expect(carries(printableUrl(url), pw)).toBe(false)
        if (!read.ok) expect(read.problem).toMatch(/^PROVIDER_ADMIN_URL: /)
        // A driver's error quoting the URL, or the password alone, in any spelling, comes out without it.
        const error = `could not connect to ${url}: password "${pw}" (${encodeURIComponent(pw)}) rejected`
        expect(carries(withoutSecrets(error, url), pw)).toBe(false)
      }),
    )
  })

  it("names which part is wrong, in words a person acts on", () => {
    const problem = (text: string, schemes: ReadonlyArray<string> = postgresSchemes) => {
      const r = readConnectionUrl("X", text, schemes)
      return r.ok ? "" : r.problem
    }
    expect(problem("")).toBe("X: is empty: give postgres:// or postgresql://user:password@host:port/…")
    expect(problem("admin:pw@db/mesh")).toBe("X: has no scheme: it must start with postgres:// or postgresql://")
    expect(problem("mysql://a:b@db/m")).toBe("X: its scheme is mysql://, and it must be postgres:// or postgresql://")
    expect(problem("postgres://a:p/w@db/m")).toMatch(/^X: the user or password holds a raw '\/', '\?' or '#'/)
    expect(problem("postgres://a:p#w@db/m")).toMatch(/^X: the user or password holds a raw '\/', '\?' or '#'/)
    expect(problem("postgres://a:p@w@db/m")).toBe("X: the user or password holds a raw '@': percent-encode it as %40")
    expect(problem("postgres://a:p%zzw@db/m")).toBe(
      "X: the user or password holds a '%' not followed by two hex digits: write a literal % as %25",
    )
    expect(problem("postgres://a:pw@/m")).toBe("X: names no host")
    expect(problem("postgres://a:pw@db:0/m")).toBe("X: its port is not a number from 1 to 65535")
    expect(problem("postgres://a:pw@db:65536/m")).toBe("X: its port is not a number from 1 to 65535")
    expect(problem("postgres://a:pw@d b/m")).toBe("X: its host holds a character no host name has")
    expect(problem("nats://a:pw@bus:4222", natsSchemes)).toBe("")
    // A query that holds an '@' is no password: a URL without one reads.
    expect(problem("postgres://db:5432/m?application_name=a@b")).toBe("")
  })

  it("an empty password, a URL with none, and secret query parameters", () => {
    const none = readConnectionUrl("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test", postgresSchemes)
    expect(none).toEqual({
      ok: true,
      url: "postgres://postgres@127.0.0.1:5432/test",
      printable: "postgres://postgres@127.0.0.1:5432/test",
      secretForms: [],
    })
    const empty = readConnectionUrl("DATABASE_URL", "postgres://u:@h/d", postgresSchemes)
    expect(empty.ok && empty.secretForms).toEqual([])
    const query = readConnectionUrl("DATABASE_URL", "postgres://h/d?user=u&password=Query-Secret-1", postgresSchemes)
    expect(query.ok && query.printable).toBe("postgres://h/d?user=u&password=***")
    expect(withoutSecrets("refused Query-Secret-1", "postgres://h/d?user=u&password=Query-Secret-1")).toBe(
      "refused ***",
    )
  })

  it("a short password is never masked in place: a text that spells it is withheld whole", () => {
    expect(withoutSecrets("authentication failed for pw", "postgres://u:pw@h/d")).toBe(
      "(error text withheld: it spelled a connection's password)",
    )
    expect(withoutSecrets("connection refused", "postgres://u:pw@h/d")).toBe("connection refused")
  })

  it("a URL that does not read is never printed", () => {
    expect(printableUrl("postgres://a:Secret/Word@h/d")).toBe("(a URL that does not read)")
    expect(withoutSecrets("at postgres://a:Secret/Word@h/d: refused", "postgres://a:Secret/Word@h/d")).toBe(
      "at (a URL that does not read): refused",
    )
  })
})
