// Reading the contributions document. **Nothing read is not nobody asking** (novox/hq issue 241):
// a file that could not be read, is not JSON, is for another requirement or has no given list says
// nothing about who is asking, so it can neither apply nor withdraw. Only a file that was read can.
import { isJsonObject, type JsonObject } from "../json.ts"
import type { Contribution, DocumentRead, Provider } from "./model.ts"

export type Reading =
  | { readonly usable: true; readonly given: ReadonlyArray<Contribution> }
  | { readonly usable: false; readonly why: string }

const stringField = (value: unknown): string | undefined =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : undefined

const objectField = (value: unknown): JsonObject | undefined =>
  value === undefined || value === null ? {} : isJsonObject(value) ? value : undefined

// An entry of another shape makes the whole list unusable, as Go's json.Unmarshal does.
const contributionOf = (entry: unknown): Contribution | undefined => {
  if (entry === null) return { as: "", secret: "", node: "", at: "", values: {}, derived: {} }
  if (!isJsonObject(entry)) return undefined
  const as = stringField(entry["as"])
  const secret = stringField(entry["secret"])
  const node = stringField(entry["node"])
  const at = stringField(entry["at"])
  const values = objectField(entry["values"])
  const derived = objectField(entry["derived"])
  if (as === undefined || secret === undefined || node === undefined || at === undefined) return undefined
  if (values === undefined || derived === undefined) return undefined
  return { as, secret, node, at, values, derived }
}

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export const readContributions = (read: DocumentRead, provider: Provider): Reading => {
  const file = provider.receives
  if (read.read === "failed") {
    return { usable: false, why: `contributions file unreadable (${file}): ${read.error}` }
  }
  let doc: unknown
  try {
    doc = JSON.parse(read.text)
  } catch (e) {
    return { usable: false, why: `contributions file is not JSON (${file}): ${errorMessage(e)}` }
  }
  if (!isJsonObject(doc)) {
    return { usable: false, why: `contributions file is not JSON (${file}): not a JSON object` }
  }
  const requirement = stringField(doc["requirement"])
  if (requirement === undefined) {
    return { usable: false, why: `contributions file is not JSON (${file}): requirement is not a string` }
  }
  if (requirement !== "" && requirement !== provider.resource) {
    return { usable: false, why: `${file} is for ${requirement}, not ${provider.resource}` }
  }
  const given = doc["given"]
  const noList = { usable: false, why: `${file} has no given list` } as const
  if (!Array.isArray(given)) return noList
  const out: Array<Contribution> = []
  for (const entry of given) {
    const c = contributionOf(entry)
    if (c === undefined) return noList
    // No `as` is not a credential grant: nothing to create for it.
    if (c.as !== "" && c.secret !== "") out.push(c)
  }
  return { usable: true, given: out }
}
