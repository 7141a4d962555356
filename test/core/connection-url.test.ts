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
  readServerList,
  splitServers,
  withoutSecrets,
} from "@mesh-core/core/text/connection-url"
import { natsConnectOptions } from "../../shells/src/bus-credentials.ts"

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

describe("a cluster's servers, as NATS_URL names them", () => {
  const list = (pw: string, n: number) =>
    Array.from({ length: n }, (_, i) => `nats://mesh:${encodeURIComponent(pw)}@bus-${i + 1}:4222`).join(",")

  it("every server read as one URL is, printed each without its password, and nothing printed carries it", () => {
    fc.assert(
      fc.property(password, fc.integer({ min: 2, max: 5 }), (pw, n) => {
        const read = readServerList("NATS_URL", list(pw, n), natsSchemes)
        if (!read.ok) throw new Error(read.problem)
        expect(read.printable).toBe(Array.from({ length: n }, (_, i) => `nats://mesh:***@bus-${i + 1}:4222`).join(","))
        expect(printableUrl(list(pw, n))).toBe(read.printable)
        expect(carries(read.printable, pw)).toBe(false)
        expect(carries(withoutSecrets(`refused ${list(pw, n)}: ${pw}`, list(pw, n)), pw)).toBe(false)
        // The client is given each server without credentials, and the credentials once.
        const options = natsConnectOptions(list(pw, n))
        expect(options.servers).toEqual(Array.from({ length: n }, (_, i) => `nats://bus-${i + 1}:4222`))
        expect(options.pass).toBe(pw)
        expect(options.user).toBe("mesh")
      }),
    )
  })

  it("a refusal names which server is wrong, and one URL reads as before", () => {
    const r = readServerList("NATS_URL", "nats://a:4222,nats://b:99999,nats://c:4222", natsSchemes)
    expect(r.ok ? "" : r.problem).toBe("NATS_URL (server 2 of 3): its port is not a number from 1 to 65535")
    const bad = readServerList("NATS_URL", "nats://a:4222,http://b:4222", natsSchemes)
    expect(bad.ok ? "" : bad.problem).toBe(
      "NATS_URL (server 2 of 2): its scheme is http://, and it must be nats:// or tls:// or ws:// or wss://",
    )
    expect(readServerList("NATS_URL", "nats://127.0.0.1:4222", natsSchemes)).toEqual(
      readConnectionUrl("NATS_URL", "nats://127.0.0.1:4222", natsSchemes),
    )
  })

  it("a comma splits only where a scheme follows it: a raw comma in a password is no second server", () => {
    expect(splitServers("nats://u:p,w@a:4222")).toEqual(["nats://u:p,w@a:4222"])
    expect(splitServers("nats://a:1, nats://b:2")).toEqual(["nats://a:1", " nats://b:2"])
    const options = natsConnectOptions("nats://u:p%2Cw@a:4222,nats://b:4222")
    expect(options).toEqual({ servers: ["nats://a:4222", "nats://b:4222"], user: "u", pass: "p,w" })
  })
})
