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
