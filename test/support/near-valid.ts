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

/**
 * Texts for a reader of RFC 3339 times: the recorder's shape with each field a little past its range
 * either side (years `fromYear` to `toYear`), the same one keystroke off, every time `Date` writes, and
 * any short text.
 */
export const rfc3339Texts = (fromYear: number, toYear: number) => {
  const field = (n: number, min: number, max: number) => fc.integer({ min, max }).map((v) => String(v).padStart(n, "0"))
  const recorderShape = fc
    .tuple(
      field(4, fromYear, toYear),
      field(2, 0, 13),
      field(2, 0, 32),
      field(2, 0, 25),
      field(2, 0, 61),
      field(2, 0, 61),
      field(3, 0, 999),
    )
    .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`)
  const near = fc
    .tuple(recorderShape, fc.nat(), fc.string({ maxLength: 1 }))
    .map(([t, i, c]) => t.slice(0, i % 24) + c + t.slice((i % 24) + 1))
  const valid = fc
    .date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
    .map((d) => d.toISOString())
  return fc.oneof(recorderShape, near, valid, fc.string({ maxLength: 30 }))
}
