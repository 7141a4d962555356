// A mass withdrawal is held until a person allows it. Beyond the seed (issue 14), as Argo CD's
// `allowEmpty` guards auto-prune: a document that reads well but would withdraw every consumer this
// provider applied or holds a failing standing for (withdrawableIn), or more than half of them at once, is far likelier a broken delivery than the
// mesh's wish, and a withdrawal drops databases. Such a document is held (nothing applied or
// removed) and said loudly until `provide postgres --allow-mass-withdrawal` says it is meant.

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
