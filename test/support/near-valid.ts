// Lines one keystroke away from a valid one, for the fast-path properties: a fast path must decline
// (or read the same) wherever its definition, the Schema, refuses or reads differently.
import fc from "fast-check"

/** One of `lines` with one character dropped, doubled or replaced. */
export const nearValidText = (lines: ReadonlyArray<string>) =>
  fc
    .tuple(
      fc.constantFrom(...lines),
      fc.nat(),
      fc.constantFrom("drop", "double", "replace"),
      fc.string({ maxLength: 2 }),
    )
    .map(([line, i, edit, s]) => {
      const k = i % line.length
      return edit === "drop"
        ? line.slice(0, k) + line.slice(k + 1)
        : edit === "double"
          ? line.slice(0, k) + line[k] + line.slice(k)
          : line.slice(0, k) + s + line.slice(k + 1)
    })
