// Removes a demo's streams and buckets from the bus: every one whose name starts with the prefix.
// Run as: node examples/clean-bus.ts PREFIX
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { prefixed } from "../shells/src/bus/subjects.ts"

const prefix = process.argv[2]
if (prefix === undefined || prefix === "") throw new Error("give the prefix whose streams to remove")
const { upper } = prefixed(prefix)
const nc = await connect({ servers: process.env["NATS_URL"] ?? "nats://127.0.0.1:4222" })
const jsm = await jetstreamManager(nc)
for await (const s of jsm.streams.list()) {
  if (s.config.name.startsWith(upper) || s.config.name.startsWith(`KV_${upper}`))
    await jsm.streams.delete(s.config.name)
}
await nc.close()
