// What a terminal is given of text from outside (issue 43): no byte of it acts on the terminal, and
// what is shown says what was sent. The rule stated on its own: no C0 or C1 control in the output,
// text without controls or backslashes unchanged, and the text read back from what is shown.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { shown, shownJson } from "@mesh-core/core/text/terminal-text"

/** Reads a shown line back, by the rule alone: `\\` is a backslash, `\xNN` the character NN. */
const readBack = (s: string): string =>
  s.replace(/\\(\\|x([0-9a-f]{2}))/g, (_, c: string, hex?: string) =>
    hex === undefined ? c : String.fromCharCode(Number.parseInt(hex, 16)),
  )

const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\u001b", "\r", "\n", "\t", "\u009b", "\u0085", "\u007f", "\u0000", "\\", "x", "["),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
})

describe("text shown on a terminal", () => {
  it("holds no C0 or C1 control, whatever was sent", () => {
    fc.assert(
      fc.property(anyText, (t) => {
        const bytes = Buffer.from(shown(t), "utf8")
        for (const b of bytes) expect(b < 0x20 || b === 0x7f).toBe(false)
        expect(/[\u0080-\u009f]/.test(shown(t))).toBe(false)
      }),
    )
  })
  it("says what was sent: read back, it is the text; so two texts are never shown alike", () => {
    fc.assert(
      fc.property(anyText, (t) => {
        expect(readBack(shown(t))).toBe(t)
      }),
    )
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        if (a !== b) expect(shown(a)).not.toBe(shown(b))
      }),
    )
  })
  it("leaves printable text with no backslash as it is", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (t) => {
        fc.pre(!/[\u0000-\u001f\u007f-\u009f\\]/.test(t))
        expect(shown(t)).toBe(t)
      }),
    )
  })
  it("a backslash is shown doubled, so a word that spells an escape is never read as one", () => {
    expect(shown("C:\\dir \\x1b")).toBe("C:\\\\dir \\\\x1b")
    expect(shown("\\x1b")).not.toBe(shown("\u001b"))
  })
  it("a provider's word that would clear the screen or forge a line, as the operator sees it", () => {
    expect(shown("denied\u001b[2J\r\nletta: recovered")).toBe("denied\\x1b[2J\\x0d\\x0aletta: recovered")
  })
  it("JSON for a terminal: no control in it, and the same value read back", () => {
    const anyJson = fc
      .jsonValue()
      .chain((v) => fc.array(anyText, { maxLength: 4 }).map((texts) => ({ v, texts, at: { "\u009b": texts } })))
    fc.assert(
      fc.property(anyJson, (value) => {
        const text = shownJson(JSON.stringify(value))
        for (const b of Buffer.from(text, "utf8")) expect(b < 0x20 || b === 0x7f).toBe(false)
        expect(/[\u0080-\u009f]/.test(text)).toBe(false)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
    expect(shownJson(JSON.stringify({ said: "a\u009b2Jb\u007f" }))).toBe('{"said":"a\\u009b2Jb\\u007f"}')
  })
})
