// The controller's signing identity, as `serve` says it at start (seed 002: "Established at start
// rather than on first use. A control plane that cannot sign is one whose declarations every node
// correctly refuses, and that should be a startup failure rather than something discovered at the
// first declaration.").

/** The line `serve` says once its key is established: the fingerprint's first 16 hex digits, as the seed prints it. */
export const signingSaid = (fingerprint: string): string => `signing as ${fingerprint.slice(0, 16)}`

/** Why `serve` does not start when it cannot sign. */
export const cannotSignSaid = (why: string): string =>
  `this controller cannot sign (${why}), and every machine would refuse what it declares: it does not start`

/**
 * Whether a declaration's envelope fits in one message of the bus (its server's max_payload), said
 * before a sequence number is taken (issue 28): a 30 MB declaration was once blamed on the store, and
 * used up a sequence number the machine never saw.
 */
export const overTheBusLimit = (d: {
  readonly node: string
  readonly bytes: number
  readonly limit: number
}): string | undefined =>
  d.bytes <= d.limit
    ? undefined
    : `${d.node}'s declaration would be ${d.bytes} bytes on the bus, over the ${d.limit} bytes it takes in one message (its max_payload): nothing was sent and no sequence number was taken`
