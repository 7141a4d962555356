// Text from outside, as a terminal is given it (issue 43: an escape sequence or a CR/LF in a
// provider's word, printed raw by `status`, could clear the operator's screen or forge a line).

/** Every C0 control, DEL and every C1 control: what a terminal may act on rather than show. */
const controls = /[\u0000-\u001f\u007f-\u009f\\]/g

/**
 * One line as shown on a terminal: each control character (LF included: a line is one line) written
 * `\xNN`, and a backslash `\\`, so what is shown says what was sent, and two texts never look alike.
 * Printable text with no backslash is unchanged.
 */
export const shown = (line: string): string =>
  line.replace(controls, (c) => (c === "\\" ? "\\\\" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`))

/** DEL and the C1 controls: the controls `JSON.stringify` leaves as they are. */
const controlsJsonLeaves = /[\u007f-\u009f]/g

/**
 * A JSON text as a terminal is given it (`--json` read by a person as often as by a program): DEL and
 * each C1 control written `\u00NN`, which JSON reads back as the same character, so the value is
 * unchanged and no byte of it acts on the terminal. `JSON.stringify` escapes the C0 controls itself.
 */
export const shownJson = (json: string): string =>
  json.replace(controlsJsonLeaves, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
