// Rows as the store answers them (issue 8): every row read by its Schema, in order; the first that is
// not one answers why, naming what was read, the field and the problem.
import { MigrationRow, readRows } from "@mesh-core/core/rows"
import { describe, expect, it } from "vitest"

describe("readRows", () => {
  it("reads every row in order through its Schema", () => {
    expect(readRows("migrations", MigrationRow, [{ version: 2 }, { version: 1 }], (r) => r.version * 10)).toEqual({
      ok: true,
      value: [20, 10],
    })
  })

  it("refuses at the first row that is not one, naming what was read, its field and the problem", () => {
    const read = readRows("migrations", MigrationRow, [{ version: 1 }, { version: "2" }, { nope: 3 }], (r) => r.version)
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.why).toBe("a row of migrations the store answered is not one: version: Expected number")
  })
})
