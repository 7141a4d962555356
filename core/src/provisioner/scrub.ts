// A consumer's password never leaves the provider in what it says or announces (novox/hq ADR 0048:
// a provider creates the credential the mesh minted, and seals nothing). Backends echo connection
// strings in their errors, so the password is taken out raw and in every escaped form a client
// library may have written it in.

import { scrubWith } from "../text/secret-forms.ts"

export { goPathEscape, goQueryEscape, holdsAny, passwordForms, shortestMasked } from "../text/secret-forms.ts"

export const withheld = "(error text withheld: it spelled the consumer's password)"

/** An error's text without the consumer's password (secret-forms.ts `scrubWith`). */
export const scrub = (text: string, forms: ReadonlyArray<string>): string => scrubWith(text, forms, withheld)
