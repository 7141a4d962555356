// Settings said as `name=duration`, as `simulate --set failingAfter=2m` takes them: another day
// replayed under other settings, to ask "what if". One rule for what a setting may be, whether it
// comes from --set, a log's header or a `started` line (issue 14: a zero `every` was refused by
// --set and replayed from a header).
import { parseDuration } from "../duration.ts"
import { type SettingName, settingNames, type Settings } from "./model.ts"

/** Why a setting cannot be `ms`; undefined when it can. Only failingAfter may be 0 (announce at once). */
export const settingProblem = (name: SettingName, ms: number): string | undefined => {
  if (!Number.isFinite(ms) || ms < 0) return `${name} must be a duration of 0s or more`
  if (ms === 0 && name !== "failingAfter") return `${name} must be longer than 0s`
  return undefined
}

export const isSettingName = (name: string): name is SettingName =>
  (settingNames as ReadonlyArray<string>).includes(name)

/** A setting's value from its text, or why not; `notADuration` is what the caller says of a text that is no duration. */
export const settingValue = (
  name: string,
  text: string | undefined,
  notADuration: string,
): { readonly value: number } | { readonly problem: string } => {
  if (!isSettingName(name))
    return { problem: `no setting ${JSON.stringify(name)}; the settings are ${settingNames.join(", ")}` }
  const ms = text === undefined ? undefined : parseDuration(text)
  if (ms === undefined) return { problem: notADuration }
  const problem = settingProblem(name, ms)
  return problem === undefined ? { value: ms } : { problem }
}

/** `name=duration` items as the settings they change, or the first that cannot be used. */
export const settingOverrides = (
  said: ReadonlyArray<string>,
): { readonly overrides: Partial<Settings> } | { readonly problem: string } => {
  let overrides: Partial<Settings> = {}
  for (const item of said) {
    const eq = item.indexOf("=")
    const name = eq < 0 ? item : item.slice(0, eq)
    const text = eq < 0 ? undefined : item.slice(eq + 1)
    const r = settingValue(name, text, `give a duration of at most 596h, as in ${name}=2m (5s, 90s, 1h30m, 250ms)`)
    if ("problem" in r) return { problem: `--set ${item}: ${r.problem}` }
    overrides = { ...overrides, [name]: r.value }
  }
  return { overrides }
}

export const withSettings = (
  base: Settings,
  said: ReadonlyArray<string>,
): { readonly settings: Settings } | { readonly problem: string } => {
  const r = settingOverrides(said)
  return "problem" in r ? r : { settings: { ...base, ...r.overrides } }
}
