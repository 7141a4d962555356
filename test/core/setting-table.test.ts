// The settings table's words, in process (the `settings` command prints them from a child process,
// where a mutant switched on here never reaches): a URL setting refuses only what holds nothing, and
// each row says a value unset as "-", an empty one as "", a secret's value through the mask given,
// and where it came from (docs/configuration.md, issue 44).
import { type SettingRead, settingNamed, settingsLines } from "@mesh-core/core/controller/setting-table"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const decode = (name: "NATS_URL" | "DATABASE_URL" | "PROVIDER_ADMIN_URL" | "OTEL_EXPORTER_OTLP_ENDPOINT", v: string) =>
  Schema.decodeUnknownExit(settingNamed[name].schema)(v)

describe("a URL setting (NATS_URL, DATABASE_URL, PROVIDER_ADMIN_URL, OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it("refuses a value of nothing but blanks, in the table's words, and takes any other as it is", () => {
    const blank = fc.stringMatching(/^[ \t\n]*$/)
    const url = fc.stringMatching(/^[ \t]*[a-z]+:\/\/[a-z0-9.:@]+[ \t]*$/)
    for (const name of ["NATS_URL", "DATABASE_URL", "PROVIDER_ADMIN_URL", "OTEL_EXPORTER_OTLP_ENDPOINT"] as const) {
      fc.assert(
        fc.property(blank, (v) => {
          const e = decode(name, v)
          expect(e._tag).toBe("Failure")
          expect(String(e._tag === "Failure" ? e.cause : "")).toContain("empty: give a URL, or unset it")
        }),
        { numRuns: 30 },
      )
      fc.assert(
        fc.property(url, (v) => {
          const e = decode(name, v)
          expect(e._tag).toBe("Success")
          expect(e._tag === "Success" && e.value).toBe(v)
        }),
        { numRuns: 30 },
      )
    }
  })
})

describe("settingsLines: `mesh-controller settings`, one row a setting", () => {
  const mask = (url: string) => `masked<${url}>`
  /** The words the page gives a value: unset "-", empty `""`, a secret's through the mask, else as it is. */
  const said = (value: string | undefined, secret: boolean) =>
    value === undefined ? "-" : value === "" ? '""' : secret ? mask(value) : value
  const rowsOf = (lines: ReadonlyArray<string>) => lines.map((l) => l.split(/\s{2,}/))

  it("names each setting with its value, its default and where the value came from, secrets masked, under NAME VALUE DEFAULT FROM", () => {
    const value = fc.option(fc.constantFrom("", "x", "postgres://u:pw@db/m", "nats://h:4222"), { nil: undefined })
    const from = fc.constantFrom("environment", "default", "build stamp", "unset") as fc.Arbitrary<SettingRead["from"]>
    const read = fc.record({ setting: fc.constantFrom(...Object.values(settingNamed)), value, from })
    fc.assert(
      fc.property(fc.array(read, { minLength: 1, maxLength: 6 }), (reads) => {
        const lines = settingsLines(reads, mask)
        expect(rowsOf(lines)[0]).toEqual(["NAME", "VALUE", "DEFAULT", "FROM"])
        expect(lines).toHaveLength(reads.length + 1)
        reads.forEach((r, i) => {
          const secret = r.setting.secret === true
          expect(rowsOf(lines)[i + 1]).toEqual([
            r.setting.name,
            said(r.value, secret),
            said(r.setting.fallback, secret),
            r.from,
          ])
        })
      }),
    )
  })

  it("masks a secret setting's value and default, never another's", () => {
    const lines = settingsLines(
      [
        { setting: settingNamed.DATABASE_URL, value: "postgres://u:pw@db/m", from: "environment" },
        { setting: settingNamed.MESH_STORE_SCHEMA, value: "postgres://u:pw@db/m", from: "environment" },
        { setting: settingNamed.MESH_BUILD, value: undefined, from: "unset" },
        { setting: settingNamed.MESH_BUS_PREFIX, value: "", from: "default" },
      ],
      mask,
    )
    expect(rowsOf(lines).slice(1)).toEqual([
      [
        "DATABASE_URL",
        "masked<postgres://u:pw@db/m>",
        "masked<postgres://postgres@127.0.0.1:5432/test>",
        "environment",
      ],
      ["MESH_STORE_SCHEMA", "postgres://u:pw@db/m", "mesh", "environment"],
      ["MESH_BUILD", "-", "-", "unset"],
      ["MESH_BUS_PREFIX", '""', '""', "default"],
    ])
  })
})
