// Settings said as `name=duration`, as `simulate --set failingAfter=2m` takes them: another day
// replayed under other settings, to ask "what if".
import { parseDuration } from "../duration.ts"
import { type SettingName, settingNames, type Settings } from "./model.ts"

export const withSettings = (
  base: Settings, said: ReadonlyArray<string>,
): { readonly settings: Settings } | { readonly problem: string } => {
  let settings = base
  for (const item of said) {
    const eq = item.indexOf("=")
    const name = eq < 0 ? item : item.slice(0, eq)
    if (!(settingNames as ReadonlyArray<string>).includes(name)) {
      return { problem: `--set ${item}: no setting ${JSON.stringify(name)}; the settings are ${settingNames.join(", ")}` }
    }
    const ms = eq < 0 ? undefined : parseDuration(item.slice(eq + 1))
    if (ms === undefined) return { problem: `--set ${item}: give a duration, as in ${name}=2m (5s, 90s, 1h30m, 250ms)` }
    if (ms <= 0 && name !== "failingAfter") return { problem: `--set ${item}: ${name} must be longer than 0s` }
    settings = { ...settings, [name as SettingName]: ms }
  }
  return { settings }
}
