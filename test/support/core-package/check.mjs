// A project that installed the packed @mesh-core/core calls its decisions as plain JavaScript
// (test/shells/core-package.test.ts copies this file into that project and runs it there). Each
// expectation is the rule's, written out here: the seed's sentence, the order seed 002 gives.
import assert from "node:assert/strict"
import {
  aboutTheMachine,
  applyWord,
  applyWords,
  brokerFirst,
  deliveryActs,
  healthBroken,
  healthNotYet,
  hear,
  judgeHealth,
  noManifest,
} from "@mesh-core/core"
import { brokerFirst as byPath } from "@mesh-core/core/delivery/order"

const facts = (over) => ({
  now: 10_000,
  reports: {},
  engines: {},
  served: { ok: true, value: {} },
  open: { ok: true, value: [] },
  rolledBack: {},
  holder: { ok: true, value: null },
  health: { ok: true, value: {} },
  ...over,
})

// The release gate (seed 003): a machine that has not reported is not yet healthy; a witness's
// verdict since the send is the build broken there.
assert.deepEqual(judgeHealth("letta", "letta", noManifest, "hq-3", 1_000, facts({})), {
  health: healthNotYet,
  why: "hq-3 has not reported on what it was sent",
})
const witnessed = facts({
  rolledBack: {
    "hq-3": [
      {
        component: "letta",
        outcome: "rolled-back",
        from: "a71c3d0aa",
        to: "5e1f0c2bb",
        why: "crash loop",
        at: 2_000,
      },
    ],
  },
})
assert.deepEqual(judgeHealth("letta", "letta", noManifest, "hq-3", 1_000, witnessed), {
  health: healthBroken,
  why: "the witness on hq-3 judged the letta a71c3d0 and rolled-back: crash loop",
})

// A condition raised about the machine since the send, naming no module it moved, holds it back as a whole.
const disk = {
  key: "machine.hq-3.disk-full",
  source: "NT",
  raised: 2_000,
  scope: "machine",
  id: "hq-3",
  machine: "hq-3",
  also: [],
  kind: "disk-full",
  summary: "the disk is full",
}
const about = aboutTheMachine("hq-3", ["letta"], 1_000, facts({ open: { ok: true, value: [disk] } }), [disk])
assert.equal(about.whole, "hq-3 as a whole: raised since it was sent: machine.hq-3.disk-full — the disk is full")
assert.equal(about.on.size, 0)

// The delivery order (seed 002): the machine holding the bus first, then the grants, then the rest.
assert.deepEqual(brokerFirst(["hq-1", "hq-2", "hq-5"], "hq-5", false), ["hq-5", "hq-1", "hq-2"])
assert.equal(byPath, brokerFirst)
const acts = []
const delivery = deliveryActs("hq-5", ["hq-1", "hq-5", "hq-2"])
let step = delivery.next()
while (step.done !== true) {
  acts.push(step.value.act === "declare" ? step.value.node : `grant ${step.value.nodes.join(",")}`)
  step = delivery.next({ ok: true })
}
assert.deepEqual(acts, ["hq-5", "grant hq-1,hq-5,hq-2", "hq-1", "hq-2"])
assert.equal(step.value, undefined)

// The standings (seed 002's header): a word heard, then the newest per consumer wins.
const failing = hear(
  "provisioner.failing",
  JSON.stringify({
    provider: "postgres",
    "provider-node": "hq-1",
    consumer: "letta",
    node: "hq-3",
    since: "2026-10-05T06:10:00Z",
    attempts: 61,
    error: "password authentication failed",
    class: "credentials-rejected",
  }),
  "2026-10-05T06:15:00Z",
  undefined,
)
assert.equal(failing.ok, true, failing.why)
const recovered = hear(
  "provisioner.recovered",
  JSON.stringify({ provider: "postgres", "provider-node": "hq-1", consumer: "letta", node: "hq-3" }),
  "2026-10-05T20:30:00Z",
  undefined,
)
assert.equal(recovered.ok, true, recovered.why)
const first = applyWord(undefined, failing.word)
assert.equal(first.outcome, "failing")
assert.equal(applyWord(first.kept, recovered.word).outcome, "cleared")
assert.equal(applyWord(applyWord(first.kept, recovered.word).kept, failing.word).outcome, "older-than-kept")
const batch = applyWords(new Map(), [recovered.word, failing.word])
assert.deepEqual(batch.outcomes, ["nothing-to-clear", "older-than-kept"])
assert.equal(batch.writes.length, 1)
assert.equal(batch.writes[0].state, "recovered")
console.log("the packed core decided as its rules say")
