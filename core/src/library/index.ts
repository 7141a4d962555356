// The core as a library (issue 29): what another controller embeds and calls, each a pure function
// over values it builds itself. The mesh controller imports the areas' modules directly
// (`@mesh-core/core/gate/judging/judge` and the like); this entry names the decisions worth embedding, so the
// API reference (docs/api/) starts from them. Every module stays importable by its path too.

/**
 * The release gate (seed 003): one machine's health for a module's new build, and the conditions
 * raised about a machine itself sorted into the modules a send moved.
 */
export {
  decide,
  defaultGateSettings,
  type Gate,
  type GateSettings,
  type Health,
  healthBroken,
  healthGood,
  healthNotYet,
  type Judged,
  judgeHealth,
  judgeMoves,
  openGate,
  type Pair,
  type Word as HealthWord,
} from "../gate/judging/judge.ts"
export { aboutTheMachine, type FirstCondition, type MachineWord } from "../gate/judging/conditions.ts"
export {
  type Condition,
  type ConditionRecord,
  type GateFacts,
  type GateFactsRecord,
  type GateRecord,
  type LeaseHolder,
  type Manifest,
  type ManifestRecord,
  noManifest,
  type Reported,
  type HealthState,
  type ResourceHealth,
  type Served,
  type Statement,
  type StatementRecord,
  type WitnessRecord,
  type WitnessVerdict,
} from "../gate/judging/facts.ts"
export type { Readable } from "../outcome.ts"

/**
 * The delivery order (seed 002, novox/hq issue 249): the machine holding the bus first, then the
 * grants, then every other declaration, as a generator a sender drives one act at a time.
 */
export { type ActOutcome, brokerFirst, type DeliveryAct, deliveryActs, holderBehind } from "../delivery/order.ts"
export { type Index as DeliveryIndex, indexRecords } from "../delivery/compose.ts"

/**
 * The failure standings (seed 002's header): the newest word per provider, machine and consumer
 * wins, and what each word did to the standing kept.
 */
export {
  applyWord,
  applyWords,
  isNewer,
  type Kept,
  orderOf,
  type StandingOutcome,
} from "../standings/standings.ts"
export { hear, type HeardWord, type StandingKey, type Word as StandingWord } from "../standings/word.ts"
export type { KeptRecord } from "../standings/questions.ts"
