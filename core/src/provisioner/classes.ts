// The classes of error a standing is announced with: what a person reading `status` needs to know
// before reading the journal (novox/hq ADR 0224). An adapter may say better; its word wins.
import { holdsAny, withheld } from "./scrub.ts"

export const ClassCredentials = "credentials-rejected"
export const ClassUnreachable = "unreachable"
export const ClassSecret = "secret-unreadable"
export const ClassRefused = "refused"

const credentialWords = [
  "invalid_grant",
  "invalid user credentials",
  "password authentication failed",
  "authentication failed",
  "unauthorized",
  " 401",
]
const unreachableWords = [
  "connection refused",
  "no such host",
  "i/o timeout",
  "deadline exceeded",
  "connection reset",
  "network is unreachable",
  "no route to host",
  "eof",
]

/** Reads an error's class from its text: the words the backends the mesh runs use (seed's ClassOf). */
export const classOf = (text: string): string => {
  const t = text.toLowerCase()
  if (credentialWords.some((w) => t.includes(w))) return ClassCredentials
  if (unreachableWords.some((w) => t.includes(w))) return ClassUnreachable
  return ClassRefused
}

/** The adapter's own word when it gave one, else the class read from the text. */
export const classFor = (adapterClass: string | undefined, text: string): string =>
  adapterClass !== undefined && adapterClass !== "" ? adapterClass : classOf(text)

/**
 * A failed call's error as the shell feeds it to the core: its class read from the text as the
 * backend gave it, before any scrubbing. Scrubbing may withhold the text (scrub.ts), and a withheld
 * `password authentication failed` must still be announced as credentials-rejected, not refused
 * (issue 14). The class is part of the fact, so a replay of the recorded (scrubbed) log gives it too.
 */
export const errorOf = (text: string, adapterClass: string | undefined) => ({
  error: text,
  class: classFor(adapterClass, text),
})

const mostInAnAnnouncement = 300

/** An announced error kept to what belongs in a status line. */
export const clip = (text: string, forms: ReadonlyArray<string> = []): string => {
  if (text.length <= mostInAnAnnouncement) return text
  let end = mostInAnAnnouncement
  // Never cut a surrogate pair in two.
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end -= 1
  const clipped = `${text.slice(0, end)}…`
  return holdsAny(clipped, forms) ? withheld : clipped
}
