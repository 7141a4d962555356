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
