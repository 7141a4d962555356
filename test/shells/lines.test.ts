// The fact-log reader (shells/src/files/lines.ts) reads a plain file into one reused buffer and a
// gzipped one through gunzip's stream, one piece ahead of the piece being split (issue 11). Its lines against a reference that splits the whole text
// at once, over every read size down to a byte (a character split across reads), plain and gzipped;
// what it holds while the lines are slow to be taken; and its ends: no last newline, a file cut short, bytes that are not UTF-8, a line too long, a .gz
// that is not one, and the file let go when the reading stops early.
import { readdirSync, writeFileSync } from "node:fs"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { gzipSync } from "node:zlib"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { lineChunks, maxLineBytes } from "../../shells/src/files/lines.ts"

// A full collection on demand, without starting vitest's workers with --expose-gc.
setFlagsFromString("--expose-gc")
const collect = runInNewContext("gc") as () => void

const scratch = mkdtempSync(join(tmpdir(), "mesh-core-lines-"))
let n = 0
const fileOf = (bytes: Uint8Array, gz: boolean): string => {
  const file = join(scratch, `${n++}.jsonl${gz ? ".gz" : ""}`)
  writeFileSync(file, gz ? gzipSync(bytes) : bytes)
  return file
}
const read = (file: string, reads = { plain: 1 << 20, gzipped: 1 << 14 }, limit = maxLineBytes) =>
  Effect.runPromiseExit(
    Stream.runCollect(lineChunks(file, limit, reads)).pipe(Effect.map((chunks) => [...chunks].flat())),
  )
const lines = async (file: string, reads?: { plain: number; gzipped: number }, limit?: number) => {
  const exit = await read(file, reads, limit)
  if (Exit.isFailure(exit)) throw new Error(`refused: ${String(exit.cause)}`)
  return exit.value
}
const failure = async (file: string, reads?: { plain: number; gzipped: number }, limit?: number) => {
  const exit = await read(file, reads, limit)
  if (Exit.isSuccess(exit)) throw new Error(`read: ${JSON.stringify(exit.value)}`)
  return String(exit.cause)
}

// The reference: a line is what lies between two newlines, and the text after the last one is a
// line unless it is empty.
const reference = (text: string): Array<string> => {
  const out: Array<string> = []
  let line = ""
  for (const c of text) {
    if (c === "\n") out.push(line), (line = "")
    else line += c
  }
  if (line !== "") out.push(line)
  return out
}

const bytes = (text: string) => new TextEncoder().encode(text)

describe("a fact log's lines", () => {
  it("are the text's lines for every read size, plain and gzipped, characters split across reads included", async () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom("\n", "\n\n", "é", "€", "😀", '{"at":1}'), fc.string({ unit: "grapheme" })), {
        maxLength: 40,
      })
      .map((p) => p.join(""))
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 64 }), fc.boolean(), async (t, size, gz) => {
        expect(await lines(fileOf(bytes(t), gz), { plain: size, gzipped: size })).toEqual(reference(t))
      }),
      { numRuns: 150 },
    )
  })

  it("reads an empty file as no lines, and a last line without its newline", async () => {
    expect(await lines(fileOf(new Uint8Array(0), false))).toEqual([])
    expect(await lines(fileOf(new Uint8Array(0), true))).toEqual([])
    expect(await lines(fileOf(bytes("a\nb"), true), { plain: 1, gzipped: 1 })).toEqual(["a", "b"])
  })

  it("reads every member of a gzip file made of several", async () => {
    const file = join(scratch, "members.jsonl.gz")
    writeFileSync(file, Buffer.concat([gzipSync(bytes("a\nb")), gzipSync(bytes("c\nd\n"))]))
    expect(await lines(file)).toEqual(["a", "bc", "d"])
  })

  it("refuses bytes that are not UTF-8 on their line, in a whole line and at the end of the file", async () => {
    const bad = Buffer.concat([bytes("a\nb\nc"), Buffer.from([0xff]), bytes("\nd\n")])
    for (const gz of [false, true]) {
      for (const size of [1, 3, 1 << 14]) {
        expect(await failure(fileOf(bad, gz), { plain: size, gzipped: size })).toMatch(
          /LineRefused: \S+:3: \(line\): not UTF-8/,
        )
      }
      // A character cut short by the end of the file.
      expect(await failure(fileOf(Buffer.concat([bytes("a\nb"), Buffer.from([0xe2, 0x82])]), gz))).toMatch(
        /LineRefused: \S+:2: \(line\): not UTF-8/,
      )
    }
  })

  it("refuses a line longer than the limit, ended or not, before it is kept whole", async () => {
    for (const gz of [false, true]) {
      expect(await failure(fileOf(bytes(`a\n${"x".repeat(100)}\nb\n`), gz), { plain: 7, gzipped: 7 }, 50)).toMatch(
        /LineRefused: \S+:2: \(line\): longer than 50 bytes/,
      )
      expect(await failure(fileOf(bytes(`a\nb\n${"x".repeat(100)}`), gz), { plain: 7, gzipped: 7 }, 50)).toMatch(
        /LineRefused: \S+:3: \(line\): longer than 50 bytes/,
      )
    }
    expect(await lines(fileOf(bytes(`${"x".repeat(50)}\n`), true), undefined, 50)).toEqual(["x".repeat(50)])
  })

  it("says a .gz that is cut short or is not gzip as unreadable, and a missing file", async () => {
    const whole = gzipSync(bytes("a\nb\nc\n".repeat(1000)))
    const cut = join(scratch, "cut.jsonl.gz")
    writeFileSync(cut, whole.subarray(0, whole.length - 20))
    expect(await failure(cut)).toMatch(/FileUnreadable[\s\S]*unexpected end of file/)
    const notGzip = join(scratch, "plain.jsonl.gz")
    writeFileSync(notGzip, "a\nb\n")
    expect(await failure(notGzip)).toMatch(/FileUnreadable[\s\S]*incorrect header check/)
    expect(await failure(join(scratch, "missing.jsonl.gz"))).toMatch(/FileUnreadable[\s\S]*ENOENT/)
  })

  it("lets the file go when the reading stops early, at a refusal or after the first lines", async () => {
    const open = () => readdirSync("/proc/self/fd").length
    const file = fileOf(bytes('{"a":1}\n'.repeat(200_000)), true)
    const before = open()
    const first = await Effect.runPromise(
      Stream.runCollect(Stream.take(lineChunks(file, maxLineBytes, { plain: 1 << 20, gzipped: 1 << 10 }), 1)),
    )
    expect([...first]).toHaveLength(1)
    await failure(fileOf(Buffer.concat([bytes("a\n"), Buffer.from([0xff]), bytes("\n".repeat(100_000))]), true), {
      plain: 64,
      gzipped: 64,
    })
    expect(open()).toBe(before)
  })

  it("inflates only a piece or two ahead of the lines taken, however far the file expands", async () => {
    // 48 MiB of lines in a .gz of ~50 KB (48 gzip members of 1 MiB each, so the test itself never
    // holds more than one): with nothing holding gunzip back it would all be put out while the
    // first lines are still being taken.
    const file = join(scratch, "expands.jsonl.gz")
    const member = gzipSync(bytes('{"at":1}\n'.repeat(1 << 17)))
    writeFileSync(file, Buffer.concat(Array.from({ length: 48 }, () => member)))
    // What is held, not what is held plus garbage no collection has reached yet: on a loaded CI
    // machine the pieces already split lay uncollected past 8 MiB, so each reading follows a full GC.
    const held = () => {
      collect()
      return process.memoryUsage().arrayBuffers
    }
    const before = held()
    let most = 0
    let taken = 0
    await Effect.runPromise(
      Stream.runForEach(lineChunks(file), (chunk) =>
        Effect.promise(async () => {
          taken += chunk.length
          // While the lines are slow to be taken, an unheld gunzip would put the whole file out.
          if (taken < 1_000_000) {
            await new Promise((r) => setTimeout(r, 5))
            most = Math.max(most, held() - before)
          }
        }),
      ),
    )
    expect(taken).toBe(48 << 17)
    expect(most).toBeLessThan(4 << 20)
  })
})
