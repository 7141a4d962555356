// The live page's stream (issue 29): `/live` on the watch port, server-sent events of the core's frames
// (core/src/status/live.ts). One read a second while a page is open, none while none is; a frame is
// sent only when it differs from the last (the core's frameToSend). Bounded on this side: at most
// livePagesAtMost sockets, and one that has liveUnsentAtMost unsent (a browser that stopped reading)
// is dropped — its EventSource connects again and is sent the newest frame.
import type { IncomingMessage, ServerResponse } from "node:http"
import {
  frameToSend,
  liveHello,
  liveKeepAlive,
  liveKeepAliveMs,
  livePageEveryMs,
  livePagesAtMost,
  type LiveSent,
  liveUnsentAtMost,
  type LiveView,
} from "@mesh-core/core/status/live"
import { Clock, Context, Effect, Schedule } from "effect"

/** What the page shows, read now. Never fails: what cannot be read is said on the page (the core's `unread`). */
export class LivePage extends Context.Service<LivePage, { readonly view: Effect.Effect<LiveView> }>()(
  "mesh-core/LivePage",
) {}

export interface LiveHub {
  /** Answers `GET /live`: the socket kept open and sent each new frame until the browser closes it. */
  readonly open: (req: IncomingMessage, res: ServerResponse) => void
}

/** The open pages and the loops that feed them, for as long as the caller's scope is open. */
export const liveHub = Effect.fn("LivePage.hub")(function* (page: LivePage["Service"]) {
  const pages = new Set<ServerResponse>()
  let lastSent: LiveSent | undefined
  const send = (res: ServerResponse, text: string) => {
    if (res.writableLength > liveUnsentAtMost) {
      pages.delete(res)
      res.destroy()
    } else res.write(text)
  }
  const refresh = Effect.gen(function* () {
    if (pages.size === 0) {
      lastSent = undefined
      return
    }
    const sent = frameToSend(lastSent, yield* page.view, yield* Clock.currentTimeMillis)
    if (sent === undefined) return
    lastSent = sent
    for (const res of pages) send(res, sent.frame)
  }).pipe(Effect.catchCause((cause) => Effect.logWarning("the live page's view could not be made", cause)))
  yield* Effect.forkScoped(Effect.repeat(refresh, Schedule.spaced(livePageEveryMs)))
  yield* Effect.forkScoped(
    Effect.repeat(
      Effect.sync(() => {
        for (const res of pages) send(res, liveKeepAlive)
      }),
      Schedule.spaced(liveKeepAliveMs),
    ),
  )
  const open = (req: IncomingMessage, res: ServerResponse) => {
    // issue 43: a HEAD was never answered and held one of the page slots
    if (req.method === "HEAD") {
      res.writeHead(pages.size >= livePagesAtMost ? 503 : 200, { "content-type": "text/event-stream" })
      res.end()
      return
    }
    if (pages.size >= livePagesAtMost) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "retry-after": "30" })
      res.end(`${livePagesAtMost} pages are open already; close one\n`)
      return
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" })
    res.write(liveHello)
    pages.add(res)
    req.on("close", () => pages.delete(res))
    // The newest frame at once when another page is open; otherwise the next read sends it.
    if (lastSent !== undefined) res.write(lastSent.frame)
  }
  return { open } satisfies LiveHub
})
