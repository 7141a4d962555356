// The store's driver connects again after a connection dies with a write still queued. Found in CI:
// serve under a frozen store said "the store is not answering" and never said it answered again,
// the store thawed and healthy. The driver (postgres 3.4.9) sends small writes on the next turn of
// the event loop; a socket that closed before that turn cancelled the write but kept it marked as
// pending, so every later connection on that slot queued its startup message behind a write that
// never comes: no handshake, a connect timeout, again, for the life of the process. The patch in
// patches/ (applied by `npm ci`'s postinstall) clears the mark where the driver cancels the write.
import { EventEmitter } from "node:events"
import type { Socket } from "node:net"
import postgres from "postgres"
import { describe, expect, it } from "vitest"

/** A socket that records what is written to it, and closes on the next turn when told to. */
const fakeSocket = (closesAtOnce: boolean) => {
  const s = Object.assign(new EventEmitter(), {
    readyState: "open",
    written: 0,
    setKeepAlive: () => undefined,
    write: (b: Uint8Array) => {
      s.written += b.length
      return true
    },
    destroy: () => void (s.readyState = "closed"),
    end: () => void (s.readyState = "closed"),
  })
  // Queued before the driver's own deferred write (it writes once it has the socket), so the
  // socket closes with that write still queued: the order the fault needs, every time.
  if (closesAtOnce)
    setImmediate(() => {
      s.readyState = "closed"
      s.emit("close", true)
    })
  return s
}

const connecting = async (closing: (attempt: number) => boolean) => {
  const sockets: Array<ReturnType<typeof fakeSocket>> = []
  // `socket` is the driver's own option (a socket of the caller's), which its types leave out.
  const options: postgres.Options<Record<string, never>> & { readonly socket: () => Socket } = {
    socket: () => {
      const s = fakeSocket(closing(sockets.length))
      sockets.push(s)
      return s as unknown as Socket
    },
    max: 1,
    connect_timeout: 1,
    backoff: () => 0.02,
    onnotice: () => undefined,
  }
  const sql = postgres(options)
  const asked = sql`select 1`.catch(() => undefined)
  await new Promise((r) => setTimeout(r, 300))
  await sql.end({ timeout: 0 })
  await asked
  return sockets
}

describe("the store's driver after a connection dies", () => {
  it("sends its startup on the next connection when the last one closed with a write queued", async () => {
    const sockets = await connecting((attempt) => attempt === 0)
    expect(sockets.length).toBeGreaterThanOrEqual(2)
    expect(sockets[0]!.written, "the first closed before its write went").toBe(0)
    // A startup message: its length, the protocol version, `user` and the rest (more than 8 bytes).
    expect(sockets[1]!.written).toBeGreaterThan(8)
  })

  it("sends its startup on a connection that did not close (the control)", async () => {
    const sockets = await connecting(() => false)
    expect(sockets[0]!.written).toBeGreaterThan(8)
  })
})
