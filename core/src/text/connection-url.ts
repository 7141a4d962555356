// Every connection URL the project reads (NATS_URL, DATABASE_URL, PROVIDER_ADMIN_URL), read one way
// and printed one way (issue 27). A URL that does not parse was once handed to the driver, which threw
// it back whole — its password in the text, then a stack trace. Now it is refused by naming which part
// is wrong, and never echoed: the text of an unreadable URL is not known to be safe to print anywhere.
// A URL that reads is printed only as `printableUrl` makes it, and any text that may quote it (a
// driver's error) goes through `withoutSecrets`: every spelling of its password replaced.

import { longestFirst, orAsIs, passwordForms, scrubWith } from "./secret-forms.ts"

/** A connection URL read: the text to connect with, how it may be printed, and every spelling of its secrets. */
export type ConnectionUrl =
  | {
      readonly ok: true
      readonly url: string
      readonly printable: string
      readonly secretForms: ReadonlyArray<string>
    }
  | { readonly ok: false; readonly problem: string }

/** The schemes each kind of server is reached by. */
export const postgresSchemes = ["postgres", "postgresql"] as const
export const natsSchemes = ["nats", "tls", "ws", "wss"] as const

const schemePattern = /^([a-z][a-z0-9+.-]*):\/\//i
/** Query parameters that carry a secret (libpq's `password`, a token). */
const secretParameter = /pass|secret|token|key/i

// decodeURIComponent refuses a '%' not followed by two hex digits.
const decoded = orAsIs(decodeURIComponent)

/** A secret as a URL spells it, in every spelling a text may carry it: as written, and decoded, each escaped every way. */
const spellingsOf = (secret: string): ReadonlyArray<string> =>
  longestFirst([...passwordForms(secret), ...passwordForms(decoded(secret))])

const withheld = "(error text withheld: it spelled a connection's password)"

/** The parts of a URL that reads: scheme, user, password, host and port, and what follows the host. */
type Parts = Exclude<ReturnType<typeof partsOf>, { readonly problem: string }>

/**
 * Reads a connection URL given in `name`, for one of `schemes`. Refused with the part that is wrong,
 * never with the text itself. Read here, by the URL grammar a driver reads (scheme://user:password@
 * host:port/path?query), so the core needs no platform parser and every shell reads it alike.
 */
export const readConnectionUrl = (name: string, text: string, schemes: ReadonlyArray<string>): ConnectionUrl => {
  const parts = partsOf(text, schemes)
  if ("problem" in parts) return { ok: false, problem: `${name}: ${parts.problem}` }
  const secrets = [...(parts.password === undefined ? [] : [parts.password]), ...secretParametersOf(parts.tail)]
  return { ok: true, url: text, printable: printableOf(parts), secretForms: longestFirst(secrets.flatMap(spellingsOf)) }
}

/**
 * The servers of a cluster, as the NATS tools take them: URLs separated by commas
 * (`nats://u:p@a:4222,nats://u:p@b:4222`). A comma splits only where a scheme follows it, so a raw
 * comma in a password never splits a URL. Each is read as one URL is; a refusal names which server.
 */
export const splitServers = (text: string): ReadonlyArray<string> => text.split(/,(?=\s*[a-z][a-z0-9+.-]*:\/\/)/i)

export const readServerList = (name: string, text: string, schemes: ReadonlyArray<string>): ConnectionUrl => {
  const servers = splitServers(text).map((s) => s.trim())
  if (servers.length === 1) return readConnectionUrl(name, text, schemes)
  const read = servers.map((s, i) => readConnectionUrl(`${name} (server ${i + 1} of ${servers.length})`, s, schemes))
  const refused = read.find((r) => !r.ok)
  if (refused !== undefined) return refused
  const ok = read.flatMap((r) => (r.ok ? [r] : []))
  return {
    ok: true,
    url: text,
    printable: ok.map((r) => r.printable).join(","),
    secretForms: longestFirst(ok.flatMap((r) => r.secretForms)),
  }
}

const partsOf = (text: string, schemes: ReadonlyArray<string>) => {
  const expected = schemes.map((s) => `${s}://`).join(" or ")
  if (text.trim() === "") return { problem: `is empty: give ${expected}user:password@host:port/…` }
  const scheme = schemePattern.exec(text)?.[1]
  if (scheme === undefined) return { problem: `has no scheme: it must start with ${expected}` }
  if (!schemes.includes(scheme.toLowerCase()))
    return { problem: `its scheme is ${scheme}://, and it must be ${expected}` }
  const rest = text.slice(scheme.length + 3)
  const end = rest.search(/[/?#]/)
  const authority = end < 0 ? rest : rest.slice(0, end)
  const at = authority.lastIndexOf("@")
  const tail = end < 0 ? "" : rest.slice(end)
  // An '@' after the host part but in no parameter's value: a raw '/', '?' or '#' in the user or password
  // ended the host part early (`postgres://u:p@x/y@db/m` read as host x would print `x/y` of the password).
  if (/^[^?#]*@|#[\s\S]*@|[?&][^=&#]*@/.test(tail))
    return {
      problem:
        "the user or password holds a raw '/', '?' or '#', which ends the host part early: percent-encode it (/ as %2F, ? as %3F, # as %23)",
    }
  const userinfo = at < 0 ? "" : authority.slice(0, at)
  if (userinfo.includes("@")) return { problem: "the user or password holds a raw '@': percent-encode it as %40" }
  if (/%(?![0-9a-f]{2})/i.test(userinfo))
    return { problem: "the user or password holds a '%' not followed by two hex digits: write a literal % as %25" }
  const hostPort = at < 0 ? authority : authority.slice(at + 1)
  const hostEnd = hostPort.startsWith("[") ? hostPort.indexOf("]") + 1 : hostPort.search(/:|$/)
  if (hostEnd <= 0) return { problem: "names no host" }
  const host = hostPort.slice(0, hostEnd)
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9._~%-]+)$/i.test(host))
    return { problem: "its host holds a character no host name has" }
  const port = hostPort.slice(hostEnd)
  if (port !== "" && !(/^:\d{1,5}$/.test(port) && Number(port.slice(1)) >= 1 && Number(port.slice(1)) <= 65535))
    return { problem: "its port is not a number from 1 to 65535" }
  const colon = userinfo.indexOf(":")
  return {
    scheme,
    user: colon < 0 ? userinfo : userinfo.slice(0, colon),
    password: colon < 0 ? undefined : userinfo.slice(colon + 1),
    hostPort,
    tail,
  }
}

/** The values of the query's parameters that carry a secret. */
const secretParametersOf = (tail: string): ReadonlyArray<string> => {
  const query = /\?([^#]*)/.exec(tail)?.[1] ?? ""
  return query
    .split("&")
    .map((kv) => kv.split("="))
    .flatMap(([k, v]) => (k !== undefined && v !== undefined && secretParameter.test(k) ? [v] : []))
}

const printableOf = (p: Parts): string => {
  const who = p.user === "" && p.password === undefined ? "" : `${p.user}${p.password === undefined ? "" : ":***"}@`
  const tail = p.tail.replace(/([?&])([^=&#]*)=([^&#]*)/g, (whole, sep: string, k: string) =>
    secretParameter.test(k) ? `${sep}${k}=***` : whole,
  )
  return `${p.scheme}://${who}${p.hostPort}${tail}`
}

/**
 * A URL as it may be printed: its password and secret parameters replaced. One that does not read is
 * never printed: it is said only as not readable.
 */
export const printableUrl = (url: string): string => printed(readAsWritten(url))

/** A URL read as it may be printed, or said only as not readable. */
const printed = (read: ConnectionUrl | undefined): string => (read?.ok === true ? read.printable : unreadable)

/** A URL, or a list of servers, read for whatever scheme it names. */
const readAsWritten = (url: string): ConnectionUrl | undefined => {
  const schemes = splitServers(url).map((s) => schemePattern.exec(s.trim())?.[1]?.toLowerCase())
  return schemes.every((s) => s !== undefined) ? readServerList("URL", url, schemes) : undefined
}

const unreadable = "(a URL that does not read)"

/**
 * Every secret of the URL a text may quote, in every spelling, and the URL itself, replaced; a text
 * that would still give a secret away (a short one) is withheld whole, as a consumer's password is.
 */
export const withoutSecrets = (text: string, url: string): string => {
  const read = readAsWritten(url)
  const out = url === "" ? text : text.split(url).join(printed(read))
  return scrubWith(out, read?.ok === true ? read.secretForms : roughSecretsOf(url), withheld)
}

/**
 * What could be a secret in a URL that does not read: everything between the scheme and the last '@',
 * and the part after the first ':' of it, in every spelling. Over-replacing is the safe side here.
 */
const roughSecretsOf = (url: string): ReadonlyArray<string> =>
  splitServers(url).flatMap((server) => {
    const rest = server.slice(schemePattern.exec(server)?.[0].length ?? 0)
    const at = rest.lastIndexOf("@")
    if (at < 0) return []
    const userinfo = rest.slice(0, at)
    const colon = userinfo.indexOf(":")
    return [...spellingsOf(userinfo), ...(colon < 0 ? [] : spellingsOf(userinfo.slice(colon + 1)))]
  })
