// The anchor of the README's replay, as a whole process (`npm run bench -- readme`): Node started,
// the file gunzipped and every line JSON.parse'd, nothing else. Plain JavaScript, so that Node
// strips no types for it; the replay it is set beside pays its own start the same way.
import { readFileSync } from "node:fs"
import { gunzipSync } from "node:zlib"

const file = process.argv[2] ?? ""
const text = (file.endsWith(".gz") ? gunzipSync(readFileSync(file)) : readFileSync(file)).toString("utf8")
let lines = 0
for (const line of text.split("\n")) {
  if (line === "") continue
  JSON.parse(line)
  lines += 1
}
process.stdout.write(`${lines}\n`)
