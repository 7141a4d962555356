// The time every recorder and every machine writes (`toISOString`: 2026-10-05T06:10:00.001Z), read
// by hand beside a definition that reads any RFC 3339 text: a day of facts names one date millions
// of times, and each reader's regex (and, for some, Date.parse) was a tenth of a replay (issue 11).
// The definition stays the rule: it reads the date once (as midnight), and every other text; tests
// hold each reader to its definition on any text.

const digitAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i) - 48
  return c >= 0 && c <= 9 ? c : -100_000
}

/** `definition`, with the recorder's shape read by hand and the last date it named kept, and the last other text. */
export const withRecorderShape = (
  definition: (text: string) => number | undefined,
): ((text: string) => number | undefined) => {
  let lastDate = ""
  let lastDateMs = 0
  const fast = (text: string): number | undefined => {
    if (
      text.length !== 24 ||
      text.charCodeAt(10) !== 84 /* T */ ||
      text.charCodeAt(13) !== 58 ||
      text.charCodeAt(16) !== 58 ||
      text.charCodeAt(19) !== 46 ||
      text.charCodeAt(23) !== 90 /* Z */
    )
      return undefined
    if (lastDate === "" || !text.startsWith(lastDate)) {
      const date = text.slice(0, 10)
      const ms = definition(`${date}T00:00:00.000Z`)
      if (ms === undefined) return undefined
      lastDate = date
      lastDateMs = ms
    }
    const hours = digitAt(text, 11) * 10 + digitAt(text, 12)
    const minutes = digitAt(text, 14) * 10 + digitAt(text, 15)
    const seconds = digitAt(text, 17) * 10 + digitAt(text, 18)
    const millis = digitAt(text, 20) * 100 + digitAt(text, 21) * 10 + digitAt(text, 22)
    // A leap second (60) and anything not digits are the definition's to answer.
    if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59 || millis < 0)
      return undefined
    return lastDateMs + hours * 3_600_000 + minutes * 60_000 + seconds * 1_000 + millis
  }
  // And the last text answered: a provider says one `since` on every retry, read twice a word (issue
  // 11: the follower's slowest reading); a controller's program and its answers, one time (issue 45).
  let lastText: string | undefined
  let lastTextMs: number | undefined
  return (text) => {
    if (text !== lastText) {
      lastTextMs = fast(text) ?? definition(text)
      lastText = text
    }
    return lastTextMs
  }
}
