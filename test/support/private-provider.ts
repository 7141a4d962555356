// What the provider's fault tests share: private servers they start and kill themselves (never the
// shared ones), a provider's files in a temporary folder, and a search of every captured byte for
// every spelling of a password.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { goPathEscape, goQueryEscape } from "@mesh-core/core/provisioner/scrub"
import { eventually } from "./servers.ts"

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on("error", reject)
  })

/** A backend that takes every connection and never says a word: a hung server. */
export const startHungServer = async (): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> => {
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
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()) }),
  }
}

/** A nats-server with JetStream of the test's own, on a free port, killed by its PID. */
export const startPrivateNats = async (dir: string, port?: number) => {
  const p = port ?? await freePort()
  mkdirSync(dir, { recursive: true })
  const child: ChildProcess = spawn("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(p), "-js", "-sd", dir], { stdio: "ignore" })
  const url = `nats://127.0.0.1:${p}`
  const { connect } = await import("@nats-io/transport-node")
  await eventually(`private nats-server at ${url}`, async () => {
    const nc = await connect({ servers: url, timeout: 1_000 })
    await nc.close()
    return true
  }, 10_000)
  return {
    url,
    port: p,
    pid: child.pid!,
    kill: () => new Promise<void>((r) => { if (child.exitCode !== null) return r(); child.once("exit", () => r()); child.kill("SIGKILL") }),
  }
}

/** A provider's files: its contributions document and one secret file per consumer. */
export const providerFiles = (consumers: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "mesh-core-provider-"))
  const receives = join(dir, "contributions.json")
  const secretOf = (as: string) => join(dir, `${as}.secret`)
  const write = (given: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
    writeFileSync(receives, JSON.stringify({ requirement: "postgres", given: given.map((as) => ({ as, secret: secretOf(as), node: `${as}-node` })), ...extra }))
  for (const [as, password] of Object.entries(consumers)) writeFileSync(secretOf(as), `${password}\n`)
  write(Object.keys(consumers))
  return { dir, receives, secretOf, write, writeText: (text: string) => writeFileSync(receives, text), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Every way a password may be spelled in what a program wrote: raw, URL query and path, JSON, base64, hex. */
export const leakForms = (password: string): ReadonlyArray<string> => {
  const bytes = Buffer.from(password, "utf8")
  return [...new Set([
    password, goQueryEscape(password), goPathEscape(password), encodeURIComponent(password),
    JSON.stringify(password).slice(1, -1), bytes.toString("base64").replace(/=+$/, ""), bytes.toString("hex"),
    bytes.toString("hex").toUpperCase(),
  ])]
}

/**
 * The places a password was found in `haystacks`, in every form of `leakForms`. A password shorter
 * than 8 characters (`e`) is in every text as a letter, so for it what is searched for is how a
 * provider would give it away: a mask inside a word (`auth***ntication`), or the password as a URL's
 * userinfo or a quoted JSON value.
 */
export const leaksOf = (passwords: ReadonlyArray<string>, haystacks: Record<string, string>): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const pw of passwords) {
    const forms = [...pw].length >= 8
      ? leakForms(pw)
      : leakForms(pw).flatMap((f) => [`:${f}@`, `"${f}"`])
    for (const form of forms) {
      for (const [where, text] of Object.entries(haystacks)) if (text.includes(form)) found.push(`${JSON.stringify(form)} (of ${JSON.stringify(pw)}) in ${where}`)
    }
  }
  for (const [where, text] of Object.entries(haystacks)) {
    const m = /[A-Za-z]\*\*\*|\*\*\*[A-Za-z]/.exec(text)
    if (m !== null) found.push(`a mask inside a word (${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}) in ${where}`)
  }
  return found
}
