// A time as the store is sent it, `2026-10-05T06:00:00.010Z`: what Date's toISOString writes, made
// without a Date. The standings follower sends a thousand a batch, and toISOString was a tenth of the
// time it took to make a batch's rows (issue 30). A day's date is remembered (a batch's words are
// mostly of one day), the time of day made from tables of digits. Anything but a whole millisecond
// from 1970 to 9999 goes to toISOString itself; test/shells/iso-time.test.ts holds the two to one
// text.

const msPerDay = 86_400_000
/** 10000-01-01T00:00:00Z: from here on toISOString writes a six-digit year with its sign. */
const lastMs = 253_402_300_800_000

const digits2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"))
const digits3 = Array.from({ length: 1_000 }, (_, i) => String(i).padStart(3, "0"))

let rememberedDay = Number.NaN
let rememberedDate = ""

/** `ms` since the epoch as toISOString writes it. */
export const isoTime = (ms: number): string => {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= lastMs) return new Date(ms).toISOString()
  const day = Math.floor(ms / msPerDay)
  if (day !== rememberedDay) {
    rememberedDate = new Date(day * msPerDay).toISOString().slice(0, 11)
    rememberedDay = day
  }
  let rest = ms - day * msPerDay
  const milli = rest % 1_000
  rest = (rest - milli) / 1_000
  const second = rest % 60
  rest = (rest - second) / 60
  const minute = rest % 60
  const hour = (rest - minute) / 60
  return `${rememberedDate}${digits2[hour]}:${digits2[minute]}:${digits2[second]}.${digits3[milli]}Z`
}
