// The standings' answers (issue 25): each question of core/src/standings/questions.ts answered with
// the standings' store, inside the follower's transaction (a store that fails it keeps nothing).
import type { setAsideQuestions, standingsQuestions } from "@mesh-core/core/standings/questions"
import { done } from "@mesh-core/core/outcome"
import { Effect } from "effect"
import type { Answers } from "../program/drive.ts"
import type { StoreUnreadable } from "../store/postgres.ts"
import { StandingsStore } from "../store/standings.ts"

/** Setting messages aside: every follower's. */
export const setAsideAnswers = Effect.gen(function* () {
  const standings = yield* StandingsStore
  const answers: Answers<typeof setAsideQuestions, StoreUnreadable, never> = {
    "set-aside": (q) => Effect.map(standings.setAside(q.letters), (fresh) => ({ fresh: [...fresh] })),
  }
  return answers
})

export const standingsAnswers = Effect.gen(function* () {
  const standings = yield* StandingsStore
  const answers: Answers<typeof standingsQuestions, StoreUnreadable, never> = {
    ...(yield* setAsideAnswers),
    "write-standings": (q) => Effect.as(standings.writeStandings(q.writes), done),
  }
  return answers
})
