// Headless mode (-p): one user turn to the end; the final text on stdout, progress on stderr.
import type { Controller } from "../session/controller/types.js";
import { assertNever, type ImageBlock } from "../record/types.js";
import { log } from "../config/log.js";
import os from "node:os";
import { sanitizeForTerminal } from "../text/sanitize.js";
import { forStream } from "./output.js";

/** stderr is a terminal too: text from outside (tool output, provider messages) goes out inert */
const inert = (s: string): string => sanitizeForTerminal(s);

function oneLine(input: unknown): string {
  // JSON escapes C0 controls but not C1 ones (U+009B is a CSI to many terminals)
  const s = inert(typeof input === "object" && input !== null ? JSON.stringify(input) : String(input));
  return s.length > 100 ? s.slice(0, 99) + "…" : s;
}

export async function runHeadless(app: Controller, prompt: string, images: ImageBlock[]): Promise<number> {
  const err = process.stderr;
  // a row that fails to parse is quoted in its error (JSON.parse shows the text): inert too
  for (const p of app.loadProblems()) err.write(`warning: ${inert(p)}\n`);
  app.subscribe((e) => {
    switch (e.type) {
      case "tool_start":
        err.write(`▸ ${e.name} ${oneLine(e.input)}\n`);
        break;
      case "tool_end": {
        const first = e.output.split("\n")[0] ?? "";
        err.write(`  ${e.isError ? "✗" : "✓"} ${e.name} ${(e.ms / 1000).toFixed(1)}s${e.isError ? `: ${inert(first).slice(0, 200)}` : ""}\n`);
        break;
      }
      case "notice":
        log(e.level, e.text);
        // errors are printed once, at the end, as the reason for exit 1
        if (e.level !== "error") err.write(`${e.level}: ${inert(e.text)}\n`);
        break;
      // the answer itself goes to stdout once it is complete; the rest is for a screen
      case "message":
      case "answer_start":
      case "text_delta":
      case "reasoning_delta":
      case "tool_input":
      case "state":
      case "retry":
      case "usage":
      case "capture":
      case "turn_end":
      case "session":
      case "info":
      case "tool_output":
        break;
      // never emitted here: no subscriber answers permissions, so tools that need a yes are refused
      case "permission":
        e.answer("deny");
        break;
      default:
        assertNever(e, "session event");
    }
  });
  // A signal ends the run as Esc ends a turn in the screen: what arrived is kept, the turn's
  // tool processes are stopped (the turn's end does that), and the exit code names the signal
  // (128 + its number, as shells report it). The handlers stay to the end, so a signal while
  // the store closes cannot cut its last write short; a second signal ends at once (the exit
  // hook in tools/processes.ts still kills the tool processes).
  let stoppedBy: NodeJS.Signals | undefined;
  const signalCode = (s: NodeJS.Signals): number => 128 + (os.constants.signals[s] ?? 0);
  const onSignal = (sig: NodeJS.Signals): void => {
    if (stoppedBy !== undefined) process.exit(signalCode(stoppedBy));
    stoppedBy = sig;
    // after a hang-up nobody may read these any more; a failed write must not end the run early
    for (const s of [process.stdout, process.stderr]) s.on("error", () => undefined);
    app.interrupt();
    // should closing hang, end anyway
    setTimeout(() => process.exit(signalCode(sig)), 10_000).unref();
  };
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, onSignal);
  const outcome = await app.runPrompt(prompt, images);
  // the answer is the model's text: inert when stdout is a terminal, exact when piped
  const answer = forStream(outcome.finalText, process.stdout);
  if (stoppedBy !== undefined) {
    if (answer) process.stdout.write(answer + "\n");
    err.write(`albedo-tui: stopped by ${stoppedBy}; the turn was interrupted (what arrived is kept) and its processes were stopped\n`);
    return signalCode(stoppedBy);
  }
  if (outcome.ok) {
    process.stdout.write(answer.endsWith("\n") ? answer : answer + "\n");
    return 0;
  }
  if (answer) process.stdout.write(answer + "\n");
  err.write(`albedo-tui: ${inert(outcome.error ?? (outcome.interrupted ? "interrupted" : "the turn failed"))}\n`);
  return 1;
}
