// Delivery's edges a mutation run found unguarded: a grant failure naming every machine held back,
// a requirement received from every consumer that requires it, on any machine, and the bus machine
// judged against what it reports running when there is none, or its list cannot be worked out.
import { describe, expect, it } from "vitest"
import { compose, indexRecords } from "@mesh-core/core/delivery/compose"
import { deliveryActs, grantsWord, holderBehind, runningList } from "@mesh-core/core/delivery/order"
import { declared } from "../support/declared.ts"

describe("delivery's edges", () => {
  it("a grant that fails with an error names every machine it held back", () => {
    const delivery = deliveryActs(undefined, ["hq-2", "hq-3"])
    expect(delivery.next()).toEqual({ done: false, value: { act: "grant", nodes: ["hq-2", "hq-3"] } })
    expect(delivery.next({ ok: false, error: "kv down" })).toEqual({
      done: true,
      value: `${grantsWord}; hq-2, hq-3 not sent: kv down`,
    })
  })

  it("a provider receives from every consumer requiring it, sorted, wherever they run", () => {
    const records = {
      mesh: "hq",
      nodes: ["hq-1", "hq-2", "hq-3"],
      modules: [
        { name: "identity", build: "i", receives: ["identity"] },
        { name: "letta", build: "l", requires: ["identity"] },
        { name: "outline", build: "o", requires: ["identity"] },
      ],
      assignments: [
        { module: "outline", node: "hq-3" },
        { module: "identity", node: "hq-1" },
        { module: "letta", node: "hq-2" },
        { module: "letta", node: "hq-3" },
      ],
    }
    const c = compose(indexRecords(records), "hq-1", 1)
    expect(c.ok && declared(c).resources).toEqual([
      {
        module: "identity",
        build: "i",
        config: {},
        receives: { identity: ["letta@hq-2", "letta@hq-3", "outline@hq-3"] },
      },
    ])
  })

  it("what the holder runs carries the list only of the very declaration it was last sent, applied", () => {
    const applied = { digest: "d1", outcome: "applied" }
    expect(runningList(applied, { digest: "d1", busUsersDigest: "u1" })).toBe("u1")
    expect(runningList(applied, { digest: "d2", busUsersDigest: "u1" })).toBeUndefined()
    expect(runningList(applied, undefined)).toBeUndefined()
    expect(runningList({ digest: "d1", outcome: "failed" }, { digest: "d1", busUsersDigest: "u1" })).toBeUndefined()
  })

  it("a mesh with no machine holding the bus has no holder behind, whatever users its modules have", () => {
    const records = {
      mesh: "hq",
      nodes: ["hq-1", "hq-2"],
      modules: [{ name: "letta", build: "l", publishes: ["x.>"] }],
      assignments: [{ module: "letta", node: "hq-2" }],
    }
    expect(holderBehind(indexRecords(records), [], undefined)).toEqual({ holder: undefined, behind: false })
  })

  it("a holder whose user list cannot be worked out is behind, unless it is among the machines sent", () => {
    const records = {
      mesh: "hq",
      nodes: ["hq-1", "hq-2"],
      modules: [{ name: "nats", build: "n", claims: ["bus"], busUsers: true }],
      assignments: [
        { module: "nats", node: "hq-1" },
        { module: "ghost", node: "hq-2" },
      ],
    }
    const index = indexRecords(records)
    expect(index.userList.ok).toBe(false)
    expect(holderBehind(index, ["hq-2"], "u1")).toEqual({
      holder: "hq-1",
      behind: true,
    })
    expect(holderBehind(index, ["hq-1"], undefined)).toEqual({ holder: "hq-1", behind: false })
  })
})
