// Who acts, as a person's command records it (a verb on a plan, forgetting a standing). Never empty
// (issue 27): with $USER unset a verb was kept `by ""`, and no one could say who had paused a plan.
// And every text a person or a machine gives is bounded (issue 43: a 100,000-character --why was
// kept, and an open plan with it grew serve's recording by ~20 MB a minute).
import * as Schema from "effect/Schema"

/** The most each kind of text given from outside may be, in characters. */
export const textBounds = { name: 128, person: 256, build: 1024, reason: 4096 } as const

/** Why a text given from outside cannot be kept: empty, or longer than `most`; undefined when it can. */
export const textProblem = (text: string, most: number): string | undefined =>
  text.trim() === ""
    ? "empty"
    : text.length > most
      ? `${text.length} characters, over the ${most} it may be`
      : undefined

/** Why a reason (a verb's --why, which may be left out) cannot be kept, or undefined. */
export const reasonProblem = (flag: string, why: string): string | undefined =>
  why.length > textBounds.reason ? `${flag}: ${textProblem(why, textBounds.reason)}` : undefined

/** Why a person's name cannot be kept, or undefined when it can. */
export const personProblem = (flag: string, by: string): string | undefined =>
  by.trim() === ""
    ? `${flag}: give who acts (it is empty, and so is $USER): every act is kept with the name of who gave it`
    : by.length > textBounds.person
      ? `${flag}: ${by.length} characters, over the ${textBounds.person} a name may be`
      : undefined

/** A person's name on the wire: decoded by the controller, so a request without one is refused. */
export const Person = Schema.String.check(
  Schema.makeFilter((s: string) => (s.trim() === "" ? "give who acts: never empty" : (personProblem("by", s) ?? true))),
)

/** A reason on the wire, bounded as a command bounds it. */
export const Reason = Schema.String.check(Schema.isMaxLength(textBounds.reason))
