// Lease holders as processes of their own (test/support/lease-holder.ts), for the fault tests and the
// takeover benchmark: started, their lines kept with when each arrived, killed, stopped and woken by PID.
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"

const script = join(import.meta.dirname, "lease-holder.ts")
const top = join(import.meta.dirname, "../..")

export interface Line {
  readonly at: number
  readonly text: string
}

export interface Holder {
  readonly name: string
  readonly child: ChildProcess
  readonly lines: Array<Line>
  /** The first line (from `from` on) matching, with when it arrived; fails naming what it waited for. */
  readonly waitFor: (pattern: RegExp, ms: number, from?: number) => Promise<Line>
  readonly exited: Promise<number | null>
  readonly signal: (s: NodeJS.Signals) => void
}

export const leaseSettingsEnv = (duration: number, renewDeadline: number, retry: number): Record<string, string> => ({
  MESH_LEASE_DURATION: `${duration}ms`,
  MESH_LEASE_RENEW_DEADLINE: `${renewDeadline}ms`,
  MESH_LEASE_RETRY: `${retry}ms`,
})

export const startHolder = (name: string, env: Record<string, string>): Holder => {
  const child = spawn(process.execPath, [script], {
    cwd: top,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const lines: Array<Line> = []
  const waiters: Array<() => void> = []
  let partial = ""
  const take = (d: Buffer) => {
    partial += d.toString()
    const parts = partial.split("\n")
    partial = parts.pop() ?? ""
    const at = Date.now()
    for (const text of parts) lines.push({ at, text })
    for (const w of waiters.splice(0)) w()
  }
  child.stdout!.on("data", take)
  child.stderr!.on("data", take)
  const exited = new Promise<number | null>((r) =>
    child.once("exit", (code) => {
      for (const w of waiters.splice(0)) w()
      r(code)
    }),
  )
  const waitFor = (pattern: RegExp, ms: number, from = 0) =>
    new Promise<Line>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${name}: no line matching ${pattern} within ${ms}ms; it said:\n${lines.map((l) => l.text).join("\n")}`,
            ),
          ),
        ms,
      )
      const check = () => {
        const found = lines.slice(from).find((l) => pattern.test(l.text))
        if (found !== undefined) {
          clearTimeout(timer)
          resolve(found)
        } else waiters.push(check)
      }
      check()
    })
  return {
    name,
    child,
    lines,
    waitFor,
    exited,
    signal: (s) => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, s)
    },
  }
}

/** Ends a holder whatever state it is in: woken if stopped, then killed. */
export const endHolder = async (h: Holder) => {
  if (h.child.exitCode !== null || h.child.signalCode !== null) return
  h.signal("SIGCONT")
  h.signal("SIGKILL")
  await h.exited
}

export const holdsPattern = /^\[lease\] this controller holds the controller lease, epoch (\d+); it acts$/
