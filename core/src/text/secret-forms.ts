// Every spelling of a secret a text may carry, and a text without it: the one path by which a
// consumer's password (the provider, novox/hq ADR 0048) and a connection URL's password (issue 27)
// are kept out of what the project says. Backends and drivers echo connection strings in their
// errors, so a secret is taken out raw and in every escaped form a client library may have written it in.

import { utf8Bytes } from "./utf8.ts"

const hex = "0123456789ABCDEF"

/** A byte URL escaping leaves as it is: a letter, a digit, or one of `-._~`. */
const isUnreserved = (c: number): boolean => /^[A-Za-z0-9._~-]$/.test(String.fromCharCode(c))

const escapeBytes = (text: string, keep: (c: number) => boolean, space: string): string => {
  let out = ""
  for (const c of utf8Bytes(text)) {
    if (keep(c)) out += String.fromCharCode(c)
    else if (c === 0x20 && space !== "") out += space
    else out += `%${hex[c >> 4]}${hex[c & 15]}`
  }
  return out
}

/** Go's url.QueryEscape. */
export const goQueryEscape = (text: string): string => escapeBytes(text, isUnreserved, "+")

// In a path segment Go leaves $ & + : = @ as they are.
const pathKeeps = new Set([0x24, 0x26, 0x2b, 0x3a, 0x3d, 0x40])

/** Go's url.PathEscape. */
export const goPathEscape = (text: string): string => escapeBytes(text, (c) => isUnreserved(c) || pathKeeps.has(c), "")

/** `f` of a text, or the text as it is when `f` refuses it. */
export const orAsIs =
  (f: (text: string) => string) =>
  (text: string): string => {
    try {
      return f(text)
    } catch {
      return text
    }
  }

// encodeURIComponent, as a TypeScript adapter's connection string spells it; it refuses lone surrogates.
const uriComponent = orAsIs(encodeURIComponent)

/** Each spelling once, the longest first: replaced in that order, no shorter one splits a longer. */
export const longestFirst = (forms: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(forms)].sort((a, b) => b.length - a.length)

/** Every spelling of a password that an error text may carry. */
export const passwordForms = (password: string): ReadonlyArray<string> =>
  password === ""
    ? []
    : longestFirst([password, goQueryEscape(password), goPathEscape(password), uriComponent(password)])

const mask = "***"

/**
 * Below this many characters a password is never masked in place: what the mask replaces would give
 * it away (issue 14: the password `e` turned "authentication failed" into "auth***ntication
 * fail***d"), and a short password is likely to be spelled by ordinary words. A text holding one is
 * withheld whole.
 */
export const shortestMasked = 8

/**
 * An error's text without the secret. The seed replaces each form with "***"; a password made of
 * stars (or one the mask and its neighbours spell again) would survive that, so what still holds a
 * form after masking is withheld whole rather than said; so is any text holding a short password.
 * The class of the error is read from the text before this (classes.ts, `classFor`), so withholding
 * it never changes what a standing is announced as.
 */
export const scrubWith = (text: string, forms: ReadonlyArray<string>, withheld: string): string => {
  // Most texts hold no form: said as they are, without building a masked copy (a replayed day scrubs
  // every error a backend said).
  if (!holdsAny(text, forms)) return text
  if (forms.some((form) => [...form].length < shortestMasked)) return withheld
  let out = text
  for (const form of forms) out = out.split(form).join(mask)
  return holdsAny(out, forms) ? withheld : out
}

export const holdsAny = (text: string, forms: ReadonlyArray<string>): boolean =>
  forms.some((form) => text.includes(form))
