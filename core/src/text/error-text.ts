// What a caught value says, as the text a user reads: an Error's message, anything else as String
// gives it. Every place that prints a failure's cause goes through this one, so the texts agree.
export const errorText = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))
