// A transaction whose session the server ended is abandoned, never handed back to the client (issue 26).
// The controller's sessions are now ended on purpose: by their bounds (`idle_in_transaction_session_timeout`,
// lease/store-bounds.ts) and by a newer epoch's fence (migration 0014). The client (postgres.js 3.4) then
// misbehaves in two ways: the COMMIT or ROLLBACK it writes after the transaction's body returns lands on a
// socket it has already let go, and the exception escapes every caller and ends the process
// (porsager/postgres#1208); and a statement the body sends after the session ended can run on a new session
// of the same connection, outside any transaction and so outside the fence, and commit on its own
// (porsager/postgres#1155). So every statement of the body goes through a guard: once the session is known
// ended (a statement failed with the session, or the client closed the connection), the guard refuses the
// body's statements before they reach the client, and the body's end is never handed back to it.
import { storeSessionEnded } from "@mesh-core/core/lease/fence"
import type postgres from "postgres"

type Sql = postgres.Sql
type Tx = postgres.TransactionSql

/** A statement sent after its transaction had ended: refused here, never sent. */
class TransactionOver extends Error {
  readonly code = "TRANSACTION_OVER"
  readonly ended: unknown
  constructor(ended: unknown) {
    super(
      `the transaction had already ended${ended instanceof Error ? ` (${ended.message})` : ""}, so its statement was not sent`,
    )
    this.ended = ended
  }
}

interface SessionState {
  open: boolean
  ended: unknown
}

const codeOf = (e: unknown): string | undefined => {
  if (typeof e !== "object" || e === null || !("code" in e)) return undefined
  const code: unknown = Reflect.get(e, "code")
  return typeof code === "string" ? code : undefined
}

/** A statement of the body: sent only while its transaction is open; a failure that ended the session ends it. */
const guardStatement = <Q extends Promise<unknown>>(statement: Q, state: SessionState, end: (e: unknown) => void): Q =>
  new Proxy(statement, {
    get(target, key) {
      if (key !== "then" && key !== "catch" && key !== "finally") return Reflect.get(target, key, target)
      // Awaiting the statement is what sends it (postgres.js sends a statement on its first `then`).
      const sent = (): Promise<unknown> =>
        state.open
          ? target.then(undefined, (e: unknown) => {
              if (storeSessionEnded(codeOf(e))) end(e)
              throw e
            })
          : Promise.reject(new TransactionOver(state.ended))
      if (key === "then")
        return (onOk?: (v: unknown) => unknown, onError?: (e: unknown) => unknown) => sent().then(onOk, onError)
      if (key === "catch") return (onError?: (e: unknown) => unknown) => sent().catch(onError)
      return (onFinally?: () => void) => sent().finally(onFinally)
    },
  })

/** The transaction's `tx`, its statements (tagged or `unsafe`) guarded; identifiers and JSON values as they are. */
const guardTx = (tx: Tx, state: SessionState, end: (e: unknown) => void): Tx =>
  new Proxy(tx, {
    apply(target, self, args) {
      const made: unknown = Reflect.apply(target, self, args)
      return made instanceof Promise ? guardStatement(made, state, end) : made
    },
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (key !== "unsafe" || typeof value !== "function") return value
      return (...args: Array<unknown>) => {
        const made: unknown = Reflect.apply(value, target, args)
        return made instanceof Promise ? guardStatement(made, state, end) : made
      }
    },
  })

/**
 * `body` in one transaction, as `sql.begin` runs it, its statements through `tx` guarded: the outcome is the
 * body's, committed; or the failure that ended the session, at once, the body's own end then never handed back.
 */
export const beginGuarded = <A>(sql: Sql, body: (tx: Tx) => Promise<A>): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const state: SessionState = { open: true, ended: undefined }
    const end = (e: unknown) => {
      if (!state.open) return
      state.open = false
      state.ended = e
      reject(e)
    }
    let done: { readonly value: A } | undefined
    sql
      .begin(async (raw) => {
        let value: A
        try {
          value = await body(guardTx(raw, state, end))
        } catch (e) {
          if (storeSessionEnded(codeOf(e))) end(e)
          // Abandoned: a ROLLBACK written now would go to a session that is gone (see above).
          if (!state.open) return new Promise<void>(() => undefined)
          throw e
        }
        if (!state.open) return new Promise<void>(() => undefined)
        done = { value }
      })
      .then(
        () => {
          if (!state.open || done === undefined) return
          state.open = false
          resolve(done.value)
        },
        (e: unknown) => end(e),
      )
  })
