// A controller's fact log (area "controller") of any length for `npm run bench`, written a line at a
// time so a week never sits in memory: 100 machines each stating their health every minute (every
// tenth unhealthy from 06:00 to 09:00 each day, so conditions are raised and cleared), the gate
// ticking every 40 s, and a provider's words on every tenth of 100 consumers failing from 06:00 to
// 09:00 (said again every 15 minutes, then recovered). The programs are the core's own, run as
// `serve` runs them and answered by a small store, so `simulate` replays every line as it was.
import { answerLine, gateSettingsOf } from "@mesh-core/core/controller/log"
import { type Heard, keepWords } from "@mesh-core/core/standings/followers"
import { keepStatement } from "@mesh-core/core/gate/messages/statements"
import { gateTick } from "@mesh-core/core/gate/tick/tick"
import { type Program, runPure } from "@mesh-core/core/program"
import type { ControllerQuestions, Question } from "@mesh-core/core/controller/catalogue"

const iso = (t: number): string => new Date(t).toISOString()
const settingsLine = { settle: "2m0s", bound: "10m0s", every: "40s", passes: 3 }

export function* controllerDays(start: number, days: number, machines = 100, consumers = 100): Generator<string> {
  yield JSON.stringify({
    format: "mesh-core.facts",
    version: 1,
    area: "controller",
    settings: { gate: settingsLine },
    recorded: iso(start),
  })
  const settings = gateSettingsOf(settingsLine)
  const statements = new Map<string, unknown>()
  const answer = (q: Question): unknown => {
    switch (q.q) {
      case "plans-in-flight":
      case "latest-verdicts":
      case "probe-conditions":
        return { ok: true, value: [] }
      case "witness-verdicts":
        return { ok: true, value: {} }
      case "kept-statement":
        return statements.get(q.machine) ?? null
      case "write-statement":
        statements.set(q.statement.machine, { statement: q.statement, streaks: q.streaks })
        return { ok: true }
      case "raise-condition":
      case "clear-condition":
      case "write-standings":
        return { ok: true }
      default:
        throw new Error(`the bench's store does not answer ${q.q}`)
    }
  }
  let seq = 0
  function* run(
    at: number,
    input: Record<string, unknown>,
    program: Program<ControllerQuestions, unknown>,
  ): Generator<string> {
    const ran = runPure(program, (q) => answer(q))
    yield JSON.stringify({ at: iso(at), ...input })
    for (const e of ran.exchanges) yield answerLine(iso(at), e.question, e.answer)
  }
  const failingSince = new Map<number, number>()
  for (let t = start; t < start + days * 86_400_000 - 5_000; t += 10_000) {
    const step = (t - start) / 10_000
    const minute = ((t - start) % 86_400_000) / 60_000
    const failing = minute >= 360 && minute < 540
    // Equal times in the order the recorder keeps: what machines said, what providers said, then the tick.
    for (let i = step % 6; i < machines; i += 6) {
      const machine = `hq-${i}`
      const unhealthy = failing && i % 10 === 0
      const body = {
        machine,
        at: iso(t),
        resources: [
          {
            resource: "app",
            module: `m${i}`,
            state: unhealthy ? "unhealthy" : "healthy",
            ...(unhealthy ? { reason: "exited with code 137" } : {}),
          },
        ],
      }
      const message: Heard = {
        subject: `mesh.health.${machine}`,
        event: `mesh.health.${machine}`,
        body: JSON.stringify(body),
        seq: ++seq,
      }
      yield* run(t, { fact: "statement", message }, keepStatement(message))
    }
    if (step % 90 === 3) {
      // Every 15 minutes: the failing consumers' words, and a recovered word for each that came back.
      const messages: Array<Heard> = []
      for (let c = 0; c < consumers; c += 10) {
        const consumer = `consumer-${c}`
        const since = failingSince.get(c)
        if (failing) {
          if (since === undefined) failingSince.set(c, t)
          const body = {
            provider: "postgres",
            "provider-node": "hq-1",
            consumer,
            node: `hq-${c % 5}`,
            class: "unreachable",
            error: "connection refused",
            since: iso(since ?? t),
            attempts: Math.floor((t - (since ?? t)) / 60_000) + 1,
          }
          messages.push({
            subject: "provisioner.failing",
            event: "provisioner.failing",
            body: JSON.stringify(body),
            saidAt: iso(t),
            seq: ++seq,
          })
        } else if (since !== undefined) {
          failingSince.delete(c)
          const body = {
            provider: "postgres",
            "provider-node": "hq-1",
            consumer,
            node: `hq-${c % 5}`,
            since: iso(since),
            attempts: 180,
            why: "created",
          }
          messages.push({
            subject: "provisioner.recovered",
            event: "provisioner.recovered",
            body: JSON.stringify(body),
            saidAt: iso(t),
            seq: ++seq,
          })
        }
      }
      if (messages.length > 0) yield* run(t, { fact: "words", messages }, keepWords(messages))
    }
    if (step % 4 === 0) yield* run(t, { fact: "tick" }, gateTick(settings))
  }
}
