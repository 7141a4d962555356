// A test's answers to a program of one catalogue, where the test answers only the questions it sets
// up: any other the program asks dies naming the kind, a defect of the test's wiring (the shells
// answer every kind of a worker's catalogue, and the type-checker holds them to it).
import { Effect } from "effect"
import type { Catalogue } from "@mesh-core/core/program"
import type { Answers } from "../../shells/src/program/drive.ts"

export const answeringOnly = <C extends Catalogue, E = never, R = never>(
  catalogue: C,
  some: Partial<Answers<C, E, R>>,
): Answers<C, E, R> => {
  const given: Partial<Record<string, unknown>> = some
  const out: Record<string, unknown> = {}
  for (const kind of Object.keys(catalogue)) {
    out[kind] =
      given[kind] ?? (() => Effect.die(new Error(`the test's program asked ${kind}, which it does not answer`)))
  }
  return out as Answers<C, E, R>
}
