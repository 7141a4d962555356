// A TCP proxy of a test's own, for partitions: a process given the proxy's port instead of a
// server's reaches the server through it. `cut` severs every connection and refuses new ones (the
// process sees its server vanish) until `heal`; `stall` drops the traffic silently instead (issue 43:
// a partition that only resets connections is the easy kind): nothing is delivered either way and no
// connection is closed, new ones are taken and left waiting, until `heal` delivers what was held,
// as TCP does once a silent partition ends (if the process has not given up on it by then).
import { createServer, type Server, type Socket, connect } from "node:net"

export interface TcpProxy {
  readonly port: number
  /** Severs every connection through it and refuses new ones. */
  readonly cut: () => void
  /** Delivers nothing either way, closes nothing, and answers no new connection. */
  readonly stall: () => void
  readonly heal: () => void
  /** The local ports of its connections to the server: the server's `client_port` for each of them. */
  readonly upstreamPorts: () => Array<number>
  readonly stop: () => Promise<void>
}

export const startTcpProxy = (targetPort: number): Promise<TcpProxy> =>
  new Promise((resolve, reject) => {
    const open = new Set<Socket>()
    let cut = false
    let stalled = false
    const waiting: Array<() => void> = []
    const server: Server = createServer((client) => {
      if (cut) {
        client.destroy()
        return
      }
      const held: Array<Buffer> = []
      client.on("data", (d: Buffer) => void held.push(d))
      open.add(client)
      const join = () => {
        if (client.destroyed) return
        const upstream = connect(targetPort, "127.0.0.1")
        open.add(upstream)
        const close = () => {
          client.destroy()
          upstream.destroy()
          open.delete(client)
          open.delete(upstream)
        }
        client.removeAllListeners("data")
        for (const d of held.splice(0)) upstream.write(d)
        const forward = (to: Socket) => (d: Buffer) => {
          if (stalled) waiting.push(() => void (to.destroyed || to.write(d)))
          else to.write(d)
        }
        client.on("data", forward(upstream))
        upstream.on("data", forward(client))
        client.on("error", close).on("close", close)
        upstream.on("error", close).on("close", close)
      }
      client.on("error", () => client.destroy()).on("close", () => open.delete(client))
      if (stalled) waiting.push(join)
      else join()
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error("the proxy has no TCP port"))
      resolve({
        port: address.port,
        cut: () => {
          cut = true
          for (const s of open) s.destroy()
          open.clear()
          waiting.length = 0
        },
        stall: () => {
          stalled = true
        },
        heal: () => {
          cut = false
          stalled = false
          for (const deliver of waiting.splice(0)) deliver()
        },
        upstreamPorts: () =>
          [...open].flatMap((s) => (s.remotePort === targetPort && s.localPort !== undefined ? [s.localPort] : [])),
        stop: () =>
          new Promise((done) => {
            for (const s of open) s.destroy()
            server.close(() => done())
          }),
      })
    })
  })
