// Where providers' words go on the bus, and which stream keeps them (docs/bus.md).
import { EventFailing, EventRecovered } from "@mesh-core/core/provisioner/model"

export interface BusNames {
  readonly failing: string
  readonly recovered: string
  readonly stream: string
  readonly durable: string
}

export const busNames = (prefix: string): BusNames => {
  const dot = prefix === "" ? "" : `${prefix}.`
  const upper = prefix === "" ? "" : `${prefix.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}_`
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
