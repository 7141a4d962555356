// Reading the contributions document. **Nothing read is not nobody asking** (novox/hq issue 241):
// a file that could not be read, is not JSON, is for another requirement or has no given list says
// nothing about who is asking, so it can neither apply nor withdraw. Only a file that was read can.
import { isJsonObject, type JsonObject, jsonOf, NotJson } from "../json.ts"
import type { ConsumerMemory, Contribution, DocumentRead, Provider } from "./model.ts"

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
  const [as, secret, node, at] = ["as", "secret", "node", "at"].map((k) => stringField(entry[k]))
  const [values, derived] = [objectField(entry["values"]), objectField(entry["derived"])]
  if (as === undefined || secret === undefined || node === undefined || at === undefined) return undefined
  return values === undefined || derived === undefined ? undefined : { as, secret, node, at, values, derived }
}

export const readContributions = (read: DocumentRead, provider: Provider): Reading => {
  const file = provider.receives
  const unusable = (why: string): Reading => ({ usable: false, why })
  const notJson = (why: string) => unusable(`contributions file is not JSON (${file}): ${why}`)
  if (read.read === "failed") return unusable(`contributions file unreadable (${file}): ${read.error}`)
  const doc = jsonOf(read.text)
  if (doc instanceof NotJson) return notJson(doc.why)
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

// A mass withdrawal is held until a person allows it. Beyond the seed (issue 14), as Argo CD's
// `allowEmpty` guards auto-prune: a document that reads well but would withdraw every consumer this
// provider applied or holds a failing standing for (withdrawableIn), or more than half of them at once, is far likelier a broken delivery than the
// mesh's wish, and a withdrawal drops databases. Such a document is held (nothing applied or
// removed) and said loudly until `provide postgres --allow-mass-withdrawal` says it is meant.
// Said on the bus too (issue 40; ADR 0230, "one waiting for a person is an urgent condition"): a
// live provider announces a held withdrawal as a failing standing of its own, consumer and class
// `withdrawal-held` on its own machine, again every SayAgainEvery while held, and recovered once it is
// not (released, or the document no longer withdraws so many); the controller keeps it as every
// standing, an urgent condition naming the command that releases it.

/** The consumer and class a held withdrawal's standing is announced under. */
export const heldStanding = "withdrawal-held"

/** Why a pass over `want` is held, or undefined when it may go on. */
export const heldWithdrawal = (
  /** Every consumer a document that no longer names it withdraws: applied, or failing. */
  applied: ReadonlyArray<string>,
  want: ReadonlySet<string>,
  allowed: boolean,
): string | undefined => {
  if (allowed) return undefined
  const removing = applied.filter((as) => !want.has(as))
  if (removing.length === 0) return undefined
  const all = removing.length === applied.length
  if (!all && removing.length * 2 <= applied.length) return undefined
  return (
    `WITHDRAWAL HELD: the contributions file would withdraw ${all ? "every consumer" : "more than half the consumers"} ` +
    `(${removing.length} of ${applied.length}: ${removing.slice(0, 5).join(", ")}${removing.length > 5 ? ", …" : ""}); ` +
    `nothing is withdrawn until a person allows it (provide postgres --allow-mass-withdrawal)`
  )
}
