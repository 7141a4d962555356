// Reading the contributions document. **Nothing read is not nobody asking** (novox/hq issue 241):
// a file that could not be read, is not JSON, is for another requirement or has no given list says
// nothing about who is asking, so it can neither apply nor withdraw. Only a file that was read can.
import { isJsonObject, type JsonObject } from "../json.ts"
import type { ConsumerMemory, Contribution, DocumentRead, Provider } from "./model.ts"
import { errorText } from "../text/error-text.ts"

/**
 * The consumers a document that no longer names them withdraws (issue 27): those applied, which a
 * pass removes from the backend, and those never applied whose failing standing it clears and
 * announces recovered ("withdrawn"). Counting only the applied let an empty document clear every
 * failing consumer's standing, silently.
 */
export const withdrawableIn = (consumers: ReadonlyMap<string, ConsumerMemory>): ReadonlyArray<string> =>
  [...consumers].filter(([, m]) => m.applied !== undefined || m.trouble !== undefined).map(([as]) => as)

export type Reading =
  | { readonly usable: true; readonly given: ReadonlyArray<Contribution> }
  | { readonly usable: false; readonly why: string }

const stringField = (value: unknown): string | undefined =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : undefined

const objectField = (value: unknown): JsonObject | undefined =>
  value === undefined || value === null ? {} : isJsonObject(value) ? value : undefined

// An entry of another shape makes the whole list unusable, as Go's json.Unmarshal does.
// A null entry is not read as an empty grant (as Go's json.Unmarshal would): issue 14 saw
// `{"given":[null,null]}` withdraw every consumer. It makes the list unusable.
const contributionOf = (entry: unknown): Contribution | undefined => {
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

export const readContributions = (read: DocumentRead, provider: Provider): Reading => {
  const file = provider.receives
  const unusable = (why: string): Reading => ({ usable: false, why })
  const notJson = (why: string) => unusable(`contributions file is not JSON (${file}): ${why}`)
  if (read.read === "failed") return unusable(`contributions file unreadable (${file}): ${read.error}`)
  let doc: unknown
  try {
    doc = JSON.parse(read.text)
  } catch (e) {
    return notJson(errorText(e))
  }
  if (!isJsonObject(doc)) return notJson("not a JSON object")
  const requirement = stringField(doc["requirement"])
  if (requirement === undefined) return notJson("requirement is not a string")
  if (requirement !== "" && requirement !== provider.resource)
    return unusable(`${file} is for ${requirement}, not ${provider.resource}`)
  const given = doc["given"]
  if (!Array.isArray(given)) return unusable(`${file} has no given list`)
  const out: Array<Contribution> = []
  for (const [i, entry] of given.entries()) {
    const c = contributionOf(entry)
    if (c === undefined) return unusable(`${file} is unusable: given[${i}] cannot be read as a grant`)
    // A login with no secret is a grant that lost its password, not a consumer gone (issue 14).
    if (c.as !== "" && c.secret === "") return unusable(`${file} is unusable: given[${i}] (${c.as}) has no secret`)
    // No `as` is not a credential grant: nothing to create for it.
    if (c.as !== "") out.push(c)
  }
  return { usable: true, given: out }
}
