// What the provider's fault tests share: a backend that never answers, and a provider's files in a
// temporary folder. Private servers are in private-servers.ts, the search for passwords in leaks.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A backend that takes every connection and never says a word: a hung server. */
export const startHungServer = async (): Promise<{
  port: number
  accepted: () => number
  close: () => Promise<void>
}> => {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server: Server = createServer((socket) => {
    accepted += 1
    sockets.add(socket)
    socket.on("error", () => undefined)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const port = (server.address() as { port: number }).port
  return {
    port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
}

/** A provider's files: its contributions document and one secret file per consumer. */
export const providerFiles = (consumers: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-provider-"))
  const receives = join(dir, "contributions.json")
  const secretOf = (as: string) => join(dir, `${as}.secret`)
  const write = (given: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
    writeFileSync(
      receives,
      JSON.stringify({
        requirement: "postgres",
        given: given.map((as) => ({ as, secret: secretOf(as), node: `${as}-node` })),
        ...extra,
      }),
    )
  for (const [as, password] of Object.entries(consumers)) writeFileSync(secretOf(as), `${password}\n`)
  write(Object.keys(consumers))
  return {
    dir,
    receives,
    secretOf,
    write,
    writeText: (text: string) => writeFileSync(receives, text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
