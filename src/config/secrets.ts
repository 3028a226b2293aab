// The configured provider keys as a redactor: every path into the record (tool output,
// project context, prompts, answers, summaries, captures) passes text through one; its rule
// lives in src/record/redaction.ts, below the provider adapters, whose error messages pass it
// too.
export { REDACT_MIN_KEY, REDACTED, KEY_PIECE, noRedaction, redactorFor, type Redactor } from "../record/redaction.js";
