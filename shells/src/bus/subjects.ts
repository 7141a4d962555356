// Where providers' words go on the bus, and which stream keeps them (docs/bus.md).
import { EventFailing, EventRecovered } from "@mesh-core/core/provisioner/model"

export interface BusNames {
  readonly failing: string
  readonly recovered: string
  readonly stream: string
  readonly durable: string
}

/** How a mesh's prefix names things: before a subject (`P.`), and before a stream or bucket (`P_`). */
export const prefixed = (prefix: string) => ({
  dot: prefix === "" ? "" : `${prefix}.`,
  upper: prefix === "" ? "" : `${prefix.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}_`,
})

export const busNames = (prefix: string): BusNames => {
  const { dot, upper } = prefixed(prefix)
  return {
    failing: `${dot}${EventFailing}`,
    recovered: `${dot}${EventRecovered}`,
    stream: `${upper}PROVISIONER`,
    durable: "controller-standings",
  }
}

/** The event a subject carries, without the prefix. */
export const eventOf = (subject: string, names: BusNames): string =>
  subject === names.failing ? EventFailing : subject === names.recovered ? EventRecovered : subject

/** The header that carries when a word was said: words are ordered by it, not by arrival. */
export const saidAtHeader = "Mesh-At"

/** The header that carries the controller lease's epoch an event was published under (issue 13). */
export const epochHeader = "Mesh-Epoch"

/** The key the controller lease's record is kept under, in its bucket (docs/lease.md). */
export const leaseKey = "controller"
