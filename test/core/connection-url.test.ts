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
        // Which part, by the grammar: the host part ends at the first '/', '?' or '#', so the URL's own
        // '@' after one is out of place; an '@' ends the user and password; a '%' begins two hex digits.
        if (/[/?#]/.test(pw))
          expect(said).toBe(
            "PROVIDER_ADMIN_URL: the user or password holds a raw '/', '?' or '#', which ends the host part early: percent-encode it (/ as %2F, ? as %3F, # as %23)",
          )
        else if (pw.includes("@"))
          expect(said).toBe("PROVIDER_ADMIN_URL: the user or password holds a raw '@': percent-encode it as %40")
        else if (/%(?![0-9a-f]{2})/i.test(pw))
          expect(said).toBe(
            "PROVIDER_ADMIN_URL: the user or password holds a '%' not followed by two hex digits: write a literal % as %25",
          )
        else expect(said).toBe("postgres://admin:***@db.example:5432/mesh?sslmode=require")
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
    expect(problem("   ")).toBe("X: is empty: give postgres:// or postgresql://user:password@host:port/…")
    expect(problem("postgres:///m")).toBe("X: names no host")
    // An '@' after a '/' with nothing before it: the '/' was a user's or a password's.
    expect(problem("postgres:///x@db/m")).toMatch(/^X: the user or password holds a raw '\/', '\?' or '#'/)
    expect(problem("postgres://db:x/m")).toBe("X: its port is not a number from 1 to 65535")
    expect(problem("postgres://a:pw@db:1e3/m")).toBe("X: its port is not a number from 1 to 65535")
    expect(problem("postgres://a:pw@db:65535/m")).toBe("")
    expect(problem("postgres://a:p%4zw@db/m")).toBe(
      "X: the user or password holds a '%' not followed by two hex digits: write a literal % as %25",
    )
    // A raw '/' in the password names that part, whatever its other characters.
    const raw =
      "X: the user or password holds a raw '/', '?' or '#', which ends the host part early: percent-encode it (/ as %2F, ? as %3F, # as %23)"
    for (const pw of ["x9/w", "9x/w", "p?w", "p/w", "p#w"]) expect(problem(`postgres://a:${pw}@db/m`)).toBe(raw)
    expect(problem("postgres://u:pw@[::1]:5432/m")).toBe("")
    // A raw '/' after an '@' of the password: read as a host, the rest of it would print as a path.
    for (const pw of ["p@x/y", "p@x#y", "p@x?y", "p@x/y?z", "p@x?y#z"])
      expect(problem(`postgres://a:${pw}@db/m`)).toBe(raw)
    // An '@' in a parameter's value is the value's.
    expect(problem("postgres://db/m?application_name=a@b&sslmode=require")).toBe("")
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

// A URL built from its parts by the grammar (scheme://user:password@host:port/path?query), and what
// may be printed of it built from the same parts: the password, when there is one, and every value of a
// parameter whose name says it is secret made `***`; the user kept, even empty; nothing invented.
const userPart = fc.constantFrom("", "admin", "mesh user", "ä-user")
const passwordPart = fc.option(fc.constantFrom("", "S3cret-Word-1", "p/w?#@:%x€ long enough"), { nil: undefined })
const hostPart = fc.constantFrom("db", "db.example", "10.0.0.7", "[::1]", "[fd00::7]")
const portPart = fc.constantFrom("", ":1", ":5432", ":65535")
const query = fc.array(
  fc.tuple(
    fc.constantFrom("sslmode", "application_name", "password", "sslpassword", "token", "api_key"),
    fc.constantFrom("require", "Query-Secret-1", "x"),
  ),
  { maxLength: 3 },
)
const built = fc
  .record({
    user: userPart,
    password: passwordPart,
    host: hostPart,
    port: portPart,
    path: fc.constantFrom("", "/", "/mesh"),
    query,
  })
  .map((p) => {
    const q = p.query.length === 0 ? "" : `?${p.query.map(([k, v]) => `${k}=${v}`).join("&")}`
    const withPath = p.path === "" && q !== "" ? "/" : p.path
    const who = (pw: string | undefined) =>
      p.user === "" && p.password === undefined
        ? ""
        : `${encodeURIComponent(p.user)}${pw === undefined ? "" : `:${pw}`}@`
    const secret = (k: string) => /pass|secret|token|key/i.test(k)
    return {
      ...p,
      url: `postgres://${who(p.password === undefined ? undefined : encodeURIComponent(p.password))}${p.host}${p.port}${withPath}${q}`,
      printable: `postgres://${who(p.password === undefined ? undefined : "***")}${p.host}${p.port}${withPath}${p.query.length === 0 ? "" : `?${p.query.map(([k, v]) => `${k}=${secret(k) ? "***" : v}`).join("&")}`}`,
      secrets: [
        ...(p.password === undefined || p.password === "" ? [] : [p.password]),
        ...p.query.filter(([k]) => secret(k)).map(([, v]) => v),
      ],
      plain: p.query.filter(([k]) => !secret(k)).map(([, v]) => v),
    }
  })

describe("what is printed of a URL, against one built from its parts", () => {
  it("the URL with its password and secret parameters made ***: an empty user kept, no user invented where there is none", () => {
    fc.assert(
      fc.property(built, (b) => {
        const read = readConnectionUrl("DATABASE_URL", b.url, postgresSchemes)
        if (!read.ok) throw new Error(`${b.url}: ${read.problem}`)
        expect(read.printable).toBe(b.printable)
        expect(printableUrl(b.url)).toBe(b.printable)
        expect(printableUrl(b.url.replace("postgres://", "POSTGRES://"))).toBe(
          b.printable.replace("postgres://", "POSTGRES://"),
        )
        // A text quoting every secret, and the values that are not secret, says the latter and none of the former.
        const text = `refused: ${[...b.secrets, ...b.plain].join(" | ")}`
        const out = withoutSecrets(text, b.url)
        for (const s of b.secrets.filter((s) => s.length >= 8)) expect(carries(out, s)).toBe(false)
        if (b.secrets.every((s) => s.length >= 8) && b.plain.every((v) => !b.secrets.some((s) => s.includes(v))))
          for (const v of b.plain) expect(out).toContain(v)
      }),
    )
  })

  it("a URL with an empty user and a password prints neither the password nor a user it has not got", () => {
    const url = "postgres://:SECRET-PASSWORD-1@db/m"
    const read = readConnectionUrl("X", url, postgresSchemes)
    expect(read.ok && read.printable).toBe("postgres://:***@db/m")
    expect(withoutSecrets("password SECRET-PASSWORD-1 refused", url)).toBe("password *** refused")
    // With no credentials at all, the URL prints as it is: no `***`, no `@`.
    expect(printableUrl("postgres://db.example:5432/mesh")).toBe("postgres://db.example:5432/mesh")
    expect(printableUrl("postgres://@db/m")).toBe("postgres://db/m")
    expect(printableUrl("postgres://@[::1]/m?application_name=a@b")).toBe("postgres://[::1]/m?application_name=a@b")
    expect(printableUrl("postgres://db/m?application_name=a@b")).toBe("postgres://db/m?application_name=a@b")
  })

  it("a secret that holds another is masked whole, never split by the shorter", () => {
    const url = "postgres://u:Secret-Word-1@h/d?sslpassword=Secret-Word-1-and-more"
    expect(withoutSecrets("refused Secret-Word-1-and-more", url)).toBe("refused ***")
    const list = "nats://u:Secret-Word-1@a:4222,nats://u:Secret-Word-1-and-more@b:4222"
    expect(withoutSecrets("refused Secret-Word-1-and-more", list)).toBe("refused ***")
  })

  it("a parameter named without a value is no secret, nor one whose name says nothing of a secret", () => {
    const read = readConnectionUrl("X", "postgres://h/d?passfile&sslmode=require-a-long-value", postgresSchemes)
    expect(read.ok && read.secretForms).toEqual([])
    expect(
      withoutSecrets("sslmode require-a-long-value refused", "postgres://h/d?passfile&sslmode=require-a-long-value"),
    ).toBe("sslmode require-a-long-value refused")
  })

  it("of a URL that does not read, what may be a password is taken out; nothing is where it has no '@'", () => {
    // Not read (a raw '/' in the password, an empty user): the password alone is taken out too.
    expect(withoutSecrets("password Secret/Word-1 refused", "postgres://:Secret/Word-1@h/d")).toBe(
      "password *** refused",
    )
    // Not read (its port), no '@': nothing in it is a secret.
    expect(withoutSecrets("no server at postgres-db:99999/mesh", "postgres://postgres-db:99999/mesh")).toBe(
      "no server at postgres-db:99999/mesh",
    )
    // Not read (no scheme): said as not readable, and nothing else taken out.
    expect(printableUrl("db.example:5432")).toBe("(a URL that does not read)")
    expect(withoutSecrets("at db.example:5432 refused", "db.example:5432")).toBe(
      "at (a URL that does not read) refused",
    )
    expect(withoutSecrets("refused u:Secret-Word-9", "u:Secret-Word-9@db")).toBe("refused ***")
    // No URL given: the text as it is.
    expect(withoutSecrets("connection refused", "")).toBe("connection refused")
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
    const one = readServerList("NATS_URL", "nats://a:99999", natsSchemes)
    expect(one.ok ? "" : one.problem).toBe("NATS_URL: its port is not a number from 1 to 65535")
    const spaced = readServerList("NATS_URL", "nats://a:4222, nats://u:pw@b:4222", natsSchemes)
    expect(spaced.ok && spaced.printable).toBe("nats://a:4222,nats://u:***@b:4222")
    expect(printableUrl("nats://a:4222, nats://u:pw@b:4222")).toBe("nats://a:4222,nats://u:***@b:4222")
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
