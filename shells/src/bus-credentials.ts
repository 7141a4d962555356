// A NATS URL as the NATS client wants it. `NATS_URL` may carry a user and password
// (`nats://user:pass@host:4222`, as the nats CLI and the Go client take it), but the JavaScript
// client does not read credentials from a URL: it connects without them and is refused
// (Authorization Violation). So they are taken out of the URL and given as `user` and `pass`, and
// the URL that remains, with no password, is the only one a message may name.
export interface NatsConnectOptions {
  readonly servers: string
  readonly user?: string
  readonly pass?: string
}

export const natsConnectOptions = (url: string): NatsConnectOptions => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return { servers: url }
  }
  if (u.username === "" && u.password === "") return { servers: url }
  const user = decodeURIComponent(u.username)
  const pass = decodeURIComponent(u.password)
  u.username = ""
  u.password = ""
  return {
    servers: u.toString().replace(/\/$/, ""),
    ...(user === "" ? {} : { user }),
    ...(pass === "" ? {} : { pass }),
  }
}
