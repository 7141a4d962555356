// Delivery's edges a mutation run found unguarded: a grant failure naming every machine held back,
// and a requirement received from every consumer that requires it, on any machine.
import { describe, expect, it } from "vitest"
import { compose, indexRecords } from "@mesh-core/core/delivery/compose"
import { afterAct, grantsWord, startDelivery } from "@mesh-core/core/delivery/order"

describe("delivery's edges", () => {
  it("a grant that fails with an error names every machine it held back", () => {
    let step = startDelivery(undefined, ["hq-2", "hq-3"])
    step = afterAct(step, { ok: false, error: "kv down" })
    expect(step).toMatchObject({ next: undefined, delivery: { stage: "done", error: `${grantsWord}; hq-2, hq-3 not sent: kv down` } })
  })

  it("a provider receives from every consumer requiring it, sorted, wherever they run", () => {
    const records = {
      mesh: "hq", nodes: ["hq-1", "hq-2", "hq-3"],
      modules: [{ name: "identity", build: "i", receives: ["identity"] }, { name: "letta", build: "l", requires: ["identity"] }, { name: "outline", build: "o", requires: ["identity"] }],
      assignments: [{ module: "outline", node: "hq-3" }, { module: "identity", node: "hq-1" }, { module: "letta", node: "hq-2" }, { module: "letta", node: "hq-3" }],
    }
    const c = compose(indexRecords(records), "hq-1", 1)
    expect(c.ok && c.declaration.resources).toEqual([{ module: "identity", build: "i", config: {}, receives: { identity: ["letta@hq-2", "letta@hq-3", "outline@hq-3"] } }])
  })
})
