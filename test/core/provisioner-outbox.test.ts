// The provider's outbox on disk (issue 14). The rule, stated apart from the code: after any run of
// words said and acknowledged, cut by kills at any byte of a write, the file read back owes exactly
// the words said whose writing finished and that were not acknowledged, in the order they were said,
// each once. And whatever text the file holds, reading it answers or refuses with a line number,
// never throws.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Announcement } from "@mesh-core/core/provisioner/model"
import {
  defaultOutboxFile,
  emptyOutbox,
  fileOf,
  headerOf,
  messageIdOf,
  type Outbox,
  outboxNote,
  type OutboxWrite,
  owe,
  readOutbox,
  taken,
} from "@mesh-core/core/provisioner/outbox"

const owner = { resource: "postgres", node: "hq-2" }
const wordOf = (n: number, consumer: string, kind: "failing" | "withdrawn" | "first-success"): Announcement =>
  kind === "failing"
    ? {
        at: 1_790_000_000_000 + n,
        event: "provisioner.failing",
        body: {
          attempts: n + 1,
          class: "unreachable",
          consumer,
          error: `e${n}`,
          node: "hq-3",
          provider: "postgres",
          "provider-node": "hq-2",
          since: "2026-10-05T06:00:00Z",
        },
      }
    : {
        at: 1_790_000_000_000 + n,
        event: "provisioner.recovered",
        body: { consumer, provider: "postgres", "provider-node": "hq-2", why: kind },
      }

/** The file as the shell leaves it: appended to, or replaced whole (written aside and renamed, so never torn). */
const apply = (text: string, w: OutboxWrite): string =>
  (w.write === "replace" ? "" : text) + w.lines.map((l) => `${l}\n`).join("")

const ops = fc.array(
  fc.oneof(
    fc.record({
      op: fc.constant("say" as const),
      consumer: fc.constantFrom("letta", "ada", "bo"),
      kind: fc.constantFrom("failing" as const, "withdrawn" as const, "first-success" as const),
    }),
    fc.record({ op: fc.constant("ack" as const), pick: fc.nat() }),
    fc.record({ op: fc.constant("kill" as const), tear: fc.nat() }),
  ),
  { maxLength: 60 },
)

describe("the provider's outbox", () => {
  it("owes, after any kills at any byte, exactly the whole words not acknowledged, in the order said", () => {
    fc.assert(
      fc.property(ops, (run) => {
        let text = fileOf(owner, emptyOutbox)
          .lines.map((l) => `${l}\n`)
          .join("")
        let outbox: Outbox = emptyOutbox
        const model: Array<string> = [] // ids said and whole on disk, not acknowledged, in order said
        let n = 0
        const restart = () => {
          const r = readOutbox(text, owner)
          if (!r.ok) throw new Error(`refused its own file at line ${r.line}: ${r.field}: ${r.problem}`)
          expect(r.outbox.owed.map((o) => o.id)).toEqual(model)
          outbox = r.outbox
          text = apply("", fileOf(owner, outbox))
        }
        for (const o of run) {
          if (o.op === "say") {
            const word = wordOf(n++, o.consumer, o.kind)
            const r = owe(outbox, word)
            outbox = r.outbox
            text = apply(text, r.file)
            model.push(messageIdOf(word))
            // Written before it is sent: appended, never the file replaced.
            expect(r.file.write).toBe("append")
          } else if (o.op === "ack") {
            if (model.length === 0) continue
            const id = model[o.pick % model.length]!
            const r = taken(outbox, id, owner)
            outbox = r.outbox
            text = apply(text, r.file)
            model.splice(model.indexOf(id), 1)
            // With nothing more owed the file is its header alone, so it never grows while the bus answers.
            expect(r.file.write).toBe(model.length === 0 ? "replace" : "append")
            if (model.length === 0) expect(text).toBe(`${headerOf(owner)}\n`)
          } else {
            // killed in the middle of the next write, a word said or a word taken: a prefix of its line
            const tearSay = o.tear % 2 === 0 || model.length === 0
            const line = tearSay
              ? owe(outbox, wordOf(n++, "zed", "failing")).file.lines[0]!
              : JSON.stringify({ taken: model[o.tear % model.length] })
            text += line.slice(0, o.tear % line.length)
            restart()
          }
          // What is owed in memory is what is owed on disk, between kills as well as after them.
          expect(outbox.owed.map((x) => x.id)).toEqual(model)
          const onDisk = readOutbox(text, owner)
          expect(onDisk.ok && onDisk.outbox.owed.map((x) => x.id)).toEqual(model)
        }
        restart()
        // The next word sent is the oldest owed, so words reach the bus in the order they were said.
        expect(outbox.owed[0]?.id).toBe(model[0])
      }),
      { numRuns: 300 },
    )
  })

  it("a word owed twice is owed once; a taken word not owed changes nothing", () => {
    const w = wordOf(1, "letta", "withdrawn")
    const once = owe(emptyOutbox, w)
    const twice = owe(once.outbox, w)
    expect(twice.outbox.owed).toHaveLength(1)
    expect(twice.file.lines).toEqual([])
    const text = apply(apply(headerOf(owner) + "\n", once.file), once.file)
    const r = readOutbox(text, owner)
    expect(r.ok && r.outbox.owed.map((o) => o.word)).toEqual([w])
    expect(taken(once.outbox, "nobody", owner).outbox.owed).toHaveLength(1)
  })

  it("a word's id is provider/provider-node/consumer/event/epoch-ms (docs/bus.md)", () => {
    expect(messageIdOf(wordOf(1, "letta", "failing"))).toBe("postgres/hq-2/letta/provisioner.failing/1790000000001")
    expect(messageIdOf(wordOf(2, "ada", "withdrawn"))).toBe("postgres/hq-2/ada/provisioner.recovered/1790000000002")
  })

  it("taking the middle word of three leaves the first and the last, in order, and appends one taken line", () => {
    let outbox: Outbox = emptyOutbox
    const words = [wordOf(1, "letta", "failing"), wordOf(2, "ada", "withdrawn"), wordOf(3, "bo", "failing")]
    for (const w of words) outbox = owe(outbox, w).outbox
    const r = taken(outbox, messageIdOf(words[1]!), owner)
    expect(r.outbox.owed.map((o) => o.word)).toEqual([words[0], words[2]])
    expect(r.file).toEqual({ write: "append", lines: [`{"taken":"${messageIdOf(words[1]!)}"}`] })
    const first = taken(outbox, messageIdOf(words[0]!), owner)
    expect(first.outbox.owed.map((o) => o.word)).toEqual([words[1], words[2]])
  })

  it("refuses another provider's outbox, a word whose id is not its own, and a line it cannot read, by line", () => {
    const other = apply(
      headerOf(owner) + "\n",
      owe(emptyOutbox, {
        ...wordOf(1, "letta", "failing"),
        body: { ...wordOf(1, "letta", "failing").body, provider: "mysql" },
      } as Announcement).file,
    )
    expect(readOutbox(other, owner)).toEqual({
      ok: false,
      line: 2,
      field: "body.provider",
      problem: "a word of mysql on hq-2 in the outbox of postgres on hq-2",
    })
    expect(readOutbox(`${headerOf(owner)}\n`, { resource: "postgres", node: "hq-9" })).toEqual({
      ok: false,
      line: 1,
      field: "provider",
      problem: "the outbox of postgres on hq-2, not of postgres on hq-9",
    })
    expect(readOutbox(`${headerOf(owner)}\n`, { resource: "mysql", node: "hq-2" })).toMatchObject({
      ok: false,
      line: 1,
      field: "provider",
    })
    expect(readOutbox("not json\n", owner)).toEqual({ ok: false, line: 1, field: "(line)", problem: "not JSON" })
    // A blank line (an editor's) is passed over; the words around it are read.
    const two = apply(
      apply(headerOf(owner) + "\n", owe(emptyOutbox, wordOf(1, "letta", "failing")).file) + "\n",
      owe(emptyOutbox, wordOf(2, "ada", "withdrawn")).file,
    )
    expect(readOutbox(two, owner)).toMatchObject({
      ok: true,
      outbox: { owed: [{ word: wordOf(1, "letta", "failing") }, { word: wordOf(2, "ada", "withdrawn") }] },
    })
    // A word owed twice is read once, as first said.
    const w1 = owe(emptyOutbox, wordOf(1, "letta", "failing")).file
    expect(readOutbox(apply(apply(headerOf(owner) + "\n", w1), w1), owner)).toMatchObject({
      ok: true,
      outbox: { owed: [{ word: wordOf(1, "letta", "failing") }] },
      lines: 3,
    })
    const w = wordOf(1, "letta", "failing")
    const good = apply(headerOf(owner) + "\n", owe(emptyOutbox, w).file)
    expect(readOutbox(good, { resource: "postgres", node: "hq-9" })).toMatchObject({
      ok: false,
      line: 1,
      field: "provider",
    })
    expect(readOutbox(good.replace(messageIdOf(w), "forged"), owner)).toMatchObject({
      ok: false,
      line: 2,
      field: "owed",
    })
    expect(readOutbox(`${good}{"taken":\n`, owner)).toMatchObject({ ok: false, line: 3, problem: "not JSON" })
    expect(readOutbox(good.replace(`"attempts":2`, `"attempts":1.5`), owner)).toMatchObject({
      ok: false,
      line: 2,
      field: "body.attempts",
    })
    expect(readOutbox("", owner)).toMatchObject({ ok: true, outbox: { owed: [] } })
  })

  it("reads any text without throwing: an outbox, or a refusal naming a line of the file", () => {
    const w = owe(emptyOutbox, wordOf(7, "letta", "withdrawn")).file.lines[0]!
    const near = fc
      .tuple(fc.constantFrom(headerOf(owner), w, `{"taken":"x"}`), fc.nat(), fc.string({ maxLength: 3 }))
      .map(([line, i, s]) => line.slice(0, i % (line.length + 1)) + s + line.slice((i % (line.length + 1)) + 1))
    const file = fc
      .array(fc.oneof(near, fc.string(), fc.constantFrom(headerOf(owner), w)), { maxLength: 6 })
      .map((ls) => ls.join("\n"))
    fc.assert(
      fc.property(fc.oneof(file, fc.string({ unit: "binary" })), (text) => {
        const r = readOutbox(text, owner)
        if (!r.ok) {
          expect(r.line).toBeGreaterThanOrEqual(1)
          expect(r.line).toBeLessThanOrEqual(text.split("\n").length)
          expect(r.problem.length).toBeGreaterThan(0)
        }
      }),
      { numRuns: 2_000 },
    )
  })

  it("says what it found: a torn line and the words owed", () => {
    const r = readOutbox(
      apply(headerOf(owner) + "\n", owe(emptyOutbox, wordOf(1, "letta", "withdrawn")).file) + `{"tak`,
      owner,
    )
    if (!r.ok) throw new Error(r.problem)
    expect(outboxNote("/s/o", r)).toBe(
      "outbox: the last line of /s/o was cut short (5 characters, a stop mid-write); dropped; 1 word owed to the bus from before the last stop (/s/o); sending it first",
    )
    expect(outboxNote("/s/o", { ok: true, outbox: emptyOutbox, tornChars: 0, lines: 1 })).toBeUndefined()
    const two = owe(owe(emptyOutbox, wordOf(1, "letta", "failing")).outbox, wordOf(2, "ada", "failing")).outbox
    expect(outboxNote("/s/o", { ok: true, outbox: two, tornChars: 0, lines: 3 })).toBe(
      "outbox: 2 words owed to the bus from before the last stop (/s/o); sending them first",
    )
  })

  it("is kept beside the recording, else in the state directory under a name of its provider and contributions file", () => {
    const p = { resource: "postgres", node: "hq-2", receives: "/run/mesh/c.json" }
    expect(defaultOutboxFile({ record: "/var/log/p.facts.jsonl", home: "/root" }, p)).toBe(
      "/var/log/p.facts.jsonl.outbox",
    )
    expect(defaultOutboxFile({ stateDirectory: "/var/lib/prov:/other", xdgStateHome: "/x", home: "/root" }, p)).toMatch(
      /^\/var\/lib\/prov\/provider-postgres-hq-2-[0-9a-f]{12}\.outbox$/,
    )
    expect(defaultOutboxFile({ xdgStateHome: "/x", home: "/root" }, p)).toMatch(
      /^\/x\/mesh-core\/provider-postgres-hq-2-/,
    )
    const a = defaultOutboxFile({ home: "/root" }, p)
    expect(a).toMatch(/^\/root\/.local\/state\/mesh-core\/provider-postgres-hq-2-/)
    expect(defaultOutboxFile({ home: "/root" }, { ...p, receives: "/run/mesh/d.json" })).not.toBe(a)
    expect(defaultOutboxFile({ home: "/root" }, { ...p, resource: "a/../b" })).toMatch(/provider-a_.._b-hq-2-/)
    // An empty setting is no setting: the next place is taken.
    expect(defaultOutboxFile({ record: "", stateDirectory: "", xdgStateHome: "", home: "/root" }, p)).toBe(a)
    expect(defaultOutboxFile({ record: "", stateDirectory: "/s", home: "/root" }, p)).toMatch(/^\/s\/provider-/)
    expect(defaultOutboxFile({ stateDirectory: "", xdgStateHome: "/x", home: "/root" }, p)).toMatch(/^\/x\/mesh-core\//)
    // A name is kept to 64 characters, whatever the provider is called.
    expect(defaultOutboxFile({ home: "/h" }, { ...p, resource: "r".repeat(100) })).toMatch(
      new RegExp(`^/h/.local/state/mesh-core/provider-${"r".repeat(64)}-hq-2-[0-9a-f]{12}\\.outbox$`),
    )
  })
})
