// The fact log as a recorder writes it (log.ts defines the format and reads it): the header, a
// restart's line, each fact's line, and what a password becomes there. The password is never
// written: a keyed fingerprint of it is (issue 14), taken of the password the core compares (issue 8).
import { formatDuration } from "../duration.ts"
import { hmacSha256Hex } from "../sha256.ts"
import { formatName, formatVersion, freshReader, type HeaderLine, readLine, type StartedLine } from "./log.ts"
import { defaultSettings, type Fact, passwordIn, type Provider, settingNames, type Settings } from "./model.ts"
import { scrub } from "./scrub.ts"

const settingsLine = (settings: Settings): NonNullable<HeaderLine["settings"]> =>
  Object.fromEntries(settingNames.map((name) => [name, formatDuration(settings[name])]))

/** 128 bits of the HMAC are shown: enough that two passwords never share one by chance. */
const fingerprintHex = 32

/** What the log keeps of a password: HMAC-SHA-256 under the log's key, which is never in the log. */
export const fingerprintWith =
  (key: Uint8Array) =>
  (password: string): string =>
    `hmac-sha256:${hmacSha256Hex(key, password).slice(0, fingerprintHex)}`

/** The header line a recorder writes first. */
export const headerLine = (provider: Provider, settings: Settings, recorded: string): HeaderLine => ({
  format: formatName,
  version: formatVersion,
  area: "provisioner",
  provider,
  settings: settingsLine(settings),
  recorded,
})

/** The line a restarted recorder writes before its first fact. */
export const startedLine = (at: number, settings: Settings, recorded: string): StartedLine => ({
  at: new Date(at).toISOString(),
  fact: "started",
  settings: settingsLine(settings),
  recorded,
})

/**
 * Whether a recorder may append to a log whose line 1 is `firstLine`: not when the file is not this
 * provider's log (appending to another's would make a day no replay can read).
 */
export const appendingTo = (
  firstLine: string,
  provider: Provider,
): { readonly ok: true } | { readonly ok: false; readonly problem: string } => {
  const refused = (problem: string) => ({ ok: false as const, problem })
  const r = readLine(freshReader, firstLine, defaultSettings)
  if (!r.ok) return refused(`line 1: ${r.bad.field}: ${r.bad.problem}; not a provider's fact log, so not appended to`)
  const was = r.state.provider
  if (was === undefined) return refused("line 1 is blank; not a provider's fact log, so not appended to")
  if (was.resource !== provider.resource || was.receives !== provider.receives || was.node !== provider.node)
    return refused(
      `it is the log of ${JSON.stringify(was)}, not of ${JSON.stringify(provider)}; give another --record file`,
    )
  return { ok: true }
}

/**
 * The line a recorder writes for a fact. `fingerprint` turns a password into what the log keeps
 * (the password the core compares, so a secret file's trailing newline changes nothing);
 * `lastDocument` is the text last written in full, so an unchanged document is one short line;
 * `forms` are the spellings of the consumer's password last read, scrubbed from any error text:
 * a backend that echoes a connection string must not put the password in the log, and the replay
 * cannot scrub it (it only knows the fingerprint).
 */
export const lineOf = (
  fact: Fact,
  fingerprint: (password: string) => string,
  lastDocument: string | undefined,
  forms: ReadonlyArray<string>,
): Record<string, unknown> => {
  const when = new Date(fact.at).toISOString()
  switch (fact.fact) {
    case "pass": {
      const d = fact.document
      const document =
        d.read === "failed"
          ? { read: "failed", error: d.error }
          : d.text === lastDocument
            ? { read: "unchanged" }
            : { read: "ok", text: d.text }
      return { at: when, fact: "pass", document }
    }
    case "secret":
      return fact.read === "ok"
        ? { at: when, fact: "secret", as: fact.as, read: "ok", fingerprint: fingerprint(passwordIn(fact.password)) }
        : { at: when, fact: "secret", as: fact.as, read: "failed", error: fact.error }
    default: {
      const { at: _at, ...rest } = fact
      const out: Record<string, unknown> = { at: when, ...rest }
      if (typeof out["error"] === "string") out["error"] = scrub(out["error"], forms)
      if (out["class"] === undefined) delete out["class"]
      if (out["timedOut"] === false) delete out["timedOut"]
      return out
    }
  }
}
