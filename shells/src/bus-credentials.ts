// A NATS URL as the NATS client wants it. `NATS_URL` may carry a user and password
// (`nats://user:pass@host:4222`, as the nats CLI and the Go client take it), but the JavaScript
// client does not read credentials from a URL: it connects without them and is refused
// (Authorization Violation). So they are taken out of the URL and given as `user` and `pass`, and
// the URL that remains, with no password, is the only one a message may name. A cluster's servers
// come as a list separated by commas, as the NATS tools take them; the client is given each, and the
// first credentials written (the client has one user for all of a cluster's servers).
import { splitServers } from "@mesh-core/core/text/connection-url"

export interface NatsConnectOptions {
  readonly servers: Array<string>
  readonly user?: string
  readonly pass?: string
}

const withoutCredentials = (url: string): { server: string; user: string; pass: string } => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return { server: url, user: "", pass: "" }
  }
  if (u.username === "" && u.password === "") return { server: url, user: "", pass: "" }
  const user = decodeURIComponent(u.username)
  const pass = decodeURIComponent(u.password)
  u.username = ""
  u.password = ""
  return { server: u.toString().replace(/\/$/, ""), user, pass }
}

export const natsConnectOptions = (url: string): NatsConnectOptions => {
  const each = splitServers(url).map((s) => withoutCredentials(s.trim()))
  const named = each.find((e) => e.user !== "" || e.pass !== "")
  return {
    servers: each.map((e) => e.server),
    ...(named === undefined || named.user === "" ? {} : { user: named.user }),
    ...(named === undefined || named.pass === "" ? {} : { pass: named.pass }),
  }
}
