// Who acts, as a person's command records it (a verb on a plan, forgetting a standing). Never empty
// (issue 27): with $USER unset a verb was kept `by ""`, and no one could say who had paused a plan.
import * as Schema from "effect/Schema"

/** Why a person's name cannot be kept, or undefined when it can. */
export const personProblem = (flag: string, by: string): string | undefined =>
  by.trim() === ""
    ? `${flag}: give who acts (it is empty, and so is $USER): every act is kept with the name of who gave it`
    : undefined

/** A person's name on the wire: decoded by the controller, so a request without one is refused. */
export const Person = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim() !== "" || "give who acts: never empty"),
)
