// npm run bench:lease: how long the mesh goes without a controller when the one holding the lease is
// killed (kill -9), over the real NATS: KILLS times (20), a holder process killed while a candidate
// process waits, the time from the kill to the candidate saying it holds the lease. Printed beside
// the anchor, the configured lease and retry (the candidate takes over a lease after the last renewal
// it saw, looking every retry), and one give-back (SIGTERM) measured in the same run. Short settings
// from the environment so it ends in a few minutes: LEASE_MS (1000), RENEW_DEADLINE_MS (600),
// RETRY_MS (200). Prints figures; asserts nothing.
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { leaseBucketName } from "../../shells/src/lease/bucket.ts"
import { endHolder, type Holder, holdsPattern, leaseSettingsEnv, startHolder } from "../support/lease-children.ts"

const natsUrl = process.env["NATS_URL"] ?? "nats://127.0.0.1:4222"
const kills = Number(process.env["KILLS"] ?? 20)
const leaseMs = Number(process.env["LEASE_MS"] ?? 1_000)
const deadlineMs = Number(process.env["RENEW_DEADLINE_MS"] ?? 600)
const retryMs = Number(process.env["RETRY_MS"] ?? 200)
const prefix = `bench_${process.pid}`
const bucket = leaseBucketName(prefix)
const env = { NATS_URL: natsUrl, LEASE_PREFIX: prefix, ...leaseSettingsEnv(leaseMs, deadlineMs, retryMs) }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const all: Array<Holder> = []
let n = 0
const start = () => {
  const h = startHolder(`holder-${++n}`, env)
  all.push(h)
  return h
}
const waiting = /waits as a candidate$/

const nc = await connect({ servers: natsUrl, timeout: 3_000 }).catch((e: unknown) => {
  throw new Error(`NATS at ${natsUrl} is not answering (${e instanceof Error ? e.message : String(e)})`)
})
const takeovers: Array<number> = []
const epochs: Array<number> = []
try {
  let holder = start()
  await holder.waitFor(holdsPattern, 30_000)
  for (let i = 0; i < kills; i++) {
    const next = start()
    await next.waitFor(waiting, 30_000)
    // Killed at any moment between two renewals, as a crash would be.
    await sleep(retryMs * 2 + Math.random() * retryMs * 3)
    const killedAt = Date.now()
    holder.signal("SIGKILL")
    // A holder whose renewals came late on a loaded machine stopped acting at its renew deadline, before the kill.
    const stoppedBefore = holder.lines.some((l) => l.text.includes("the controller lease was lost"))
    const took = await next.waitFor(holdsPattern, leaseMs * 10 + 10_000)
    takeovers.push(took.at - killedAt)
    epochs.push(Number(holdsPattern.exec(took.text)![1]))
    process.stdout.write(
      `kill ${String(i + 1).padStart(2)}: taken over in ${took.at - killedAt} ms, epoch ${epochs.at(-1)}` +
        `${stoppedBefore ? " (the holder had already lost the lease: its renewals were late)" : ""}\n`,
    )
    holder = next
  }
  // The anchor measured in the same run: the holder stopped with SIGTERM gives the lease back.
  const next = start()
  await next.waitFor(waiting, 30_000)
  await sleep(retryMs * 2)
  const termAt = Date.now()
  holder.signal("SIGTERM")
  const took = await next.waitFor(holdsPattern, 10_000)
  const givenBack = took.at - termAt

  const sorted = [...takeovers].sort((a, b) => a - b)
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2
  process.stdout.write(
    `\nlease takeover after kill -9, ${kills} kills, over ${natsUrl}\n` +
      `  min ${sorted[0]} ms   median ${median} ms   max ${sorted.at(-1)} ms\n` +
      `  anchor: lease ${leaseMs} ms, retry ${retryMs} ms, lease + retry ${leaseMs + retryMs} ms (renew deadline ${deadlineMs} ms)\n` +
      `  given back (SIGTERM) instead: taken over in ${givenBack} ms\n` +
      `  epochs ${epochs[0]}..${epochs.at(-1)}, each one above the last: ${epochs.every((e, i) => i === 0 || e === epochs[i - 1]! + 1)}\n`,
  )
} finally {
  for (const h of all) await endHolder(h)
  const jsm = await jetstreamManager(nc)
  await jsm.streams.delete(`KV_${bucket}`).catch(() => false)
  await nc.close()
}
