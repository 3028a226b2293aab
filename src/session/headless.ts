// Headless mode (-p): one user turn to the end; the final text on stdout, progress on stderr.
import type { App } from "./app.js";
import { log } from "../config/log.js";
import { sanitizeForTerminal } from "../tools/sanitize.js";

/** stderr is a terminal too: text from outside (tool output, provider messages) goes out inert */
const inert = (s: string): string => sanitizeForTerminal(s);

function oneLine(input: unknown): string {
  // JSON escapes C0 controls but not C1 ones (U+009B is a CSI to many terminals)
  const s = inert(typeof input === "object" && input !== null ? JSON.stringify(input) : String(input));
  return s.length > 100 ? s.slice(0, 99) + "…" : s;
}

export async function runHeadless(app: App, prompt: string, images: Parameters<App["runPrompt"]>[1]): Promise<number> {
  const err = process.stderr;
  for (const p of app.loadProblems()) err.write(`warning: ${p}\n`);
  app.events.on("tool_start", (c) => err.write(`▸ ${c.name} ${oneLine(c.input)}\n`));
  app.events.on("tool_end", (r) => {
    const first = r.output.split("\n")[0] ?? "";
    err.write(`  ${r.isError ? "✗" : "✓"} ${r.name} ${(r.ms / 1000).toFixed(1)}s${r.isError ? `: ${inert(first).slice(0, 200)}` : ""}\n`);
  });
  app.events.on("notice", (n) => {
    log(n.level, n.text);
    // errors are printed once, at the end, as the reason for exit 1
    if (n.level !== "error") err.write(`${n.level}: ${inert(n.text)}\n`);
  });
  const outcome = await app.runPrompt(prompt, images);
  if (outcome.ok) {
    process.stdout.write(outcome.finalText.endsWith("\n") ? outcome.finalText : outcome.finalText + "\n");
    return 0;
  }
  if (outcome.finalText) process.stdout.write(outcome.finalText + "\n");
  err.write(`albedo-tui: ${inert(outcome.error ?? (outcome.interrupted ? "interrupted" : "the turn failed"))}\n`);
  return 1;
}
