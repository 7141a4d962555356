// A TCP proxy of a test's own, for partitions: a process given the proxy's port instead of a
// server's reaches the server through it, and `cut` severs every connection and refuses new ones
// (the process sees its server vanish, as across a network partition) until `heal`.
import { createServer, type Server, type Socket, connect } from "node:net"

export interface TcpProxy {
  readonly port: number
  /** Severs every connection through it and refuses new ones. */
  readonly cut: () => void
  readonly heal: () => void
  readonly stop: () => Promise<void>
}

export const startTcpProxy = (targetPort: number): Promise<TcpProxy> =>
  new Promise((resolve, reject) => {
    const open = new Set<Socket>()
    let cut = false
    const server: Server = createServer((client) => {
      if (cut) {
        client.destroy()
        return
      }
      const upstream = connect(targetPort, "127.0.0.1")
      open.add(client)
      open.add(upstream)
      const close = () => {
        client.destroy()
        upstream.destroy()
        open.delete(client)
        open.delete(upstream)
      }
      client.on("error", close).on("close", close)
      upstream.on("error", close).on("close", close)
      client.pipe(upstream)
      upstream.pipe(client)
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
        },
        heal: () => {
          cut = false
        },
        stop: () =>
          new Promise((done) => {
            for (const s of open) s.destroy()
            server.close(() => done())
          }),
      })
    })
  })
