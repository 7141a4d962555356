// The controller's log is one namespace (issue 25): every area's questions, joined. The log reader
// decodes an answer with the Schemas of the entry its question names; the replay, the timeline and the
// metrics read each exchange's entry here and have no rule of their own per question. A kind is
// named by one area only (a test holds it), so a recorded log replays the same whichever area asks.
// The retired questions (retired.ts) are here for reading logs recorded before: no program asks them.
import type { EntryView, QuestionOf } from "../program.ts"
import { deliveryQuestions, type ReportsTally } from "../delivery/questions.ts"
import { gateQuestions } from "../gate/questions.ts"
import type { GateTally, GateWorld } from "../gate/world.ts"
import { standingsQuestions, type StandingsTally } from "../standings/questions.ts"
import { retiredQuestions } from "./retired.ts"

/** Every area's catalogue, by its area: what a test holds to one kind, one area. */
export const catalogues = { gate: gateQuestions, standings: standingsQuestions, delivery: deliveryQuestions, retired: retiredQuestions } as const

export const controllerQuestions = { ...gateQuestions, ...standingsQuestions, ...deliveryQuestions, ...retiredQuestions }
export type ControllerQuestions = typeof controllerQuestions

/** What the controller's replay keeps of the day: each area's world (the gate's alone keeps any). */
export type ControllerWorld = GateWorld

/** What a replayed controller's day counts, area by area, beside what the timeline counts itself. */
export type AreasTally = GateTally & StandingsTally & ReportsTally

/** Any question of the controller's programs, as recorded. */
export type Question = QuestionOf<ControllerQuestions>
export type Kind = Question["q"]

const entries: Readonly<Record<string, EntryView<ControllerWorld, AreasTally, Question>>> = controllerQuestions

/** The entry of a kind, when the controller knows it. */
export const entryOf = (kind: string): EntryView<ControllerWorld, AreasTally, Question> | undefined => (Object.hasOwn(entries, kind) ? entries[kind] : undefined)

export const kinds: ReadonlyArray<string> = Object.keys(controllerQuestions)
export const isKind = (k: unknown): k is Kind => typeof k === "string" && Object.hasOwn(controllerQuestions, k)

/** The questions that change something: what a replay shows as the controller's acts. */
export const actKinds: ReadonlySet<string> = new Set(kinds.filter((k) => entries[k]!.act))
