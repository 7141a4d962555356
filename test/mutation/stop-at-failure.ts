// A mutation run's properties stop at the first failing sample: the counterexample is not shrunk.
// Shrinking is for a person reading why a property failed; Stryker needs only that it failed, and
// shrinking a recorded day's counterexample took longer than finding it. What each property samples,
// and how many samples it asks for, is as in `npm test`: a mutant survives or dies on the same runs.
import fc from "fast-check"

fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true })
