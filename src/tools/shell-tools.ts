// The model's two handles on its background commands (bash with run_in_background):
// bash_output reads what one wrote since the last read, bash_stop stops it.
import { z } from "zod";
import type { ShellInfo } from "./background.js";
import { BASH_OUTPUT_MAX } from "./bash.js";
import type { ToolDef, ToolOutput } from "./types.js";

const idInput = z.object({
  id: z.string().min(1).max(100).describe('The id bash returned for a background command ("shell-1")'),
});

function stateLine(i: ShellInfo): string {
  const secs = Math.round(((i.endedAt ?? Date.now()) - i.startedAt) / 1000);
  switch (i.state) {
    case "running":
      return `[${i.id} is running (${secs} s)]`;
    case "exited":
    case "failed":
    case "stopped":
      return `[${i.id} ${i.state === "stopped" ? "was stopped" : "has ended"}: ${i.status ?? i.state} after ${secs} s]`;
    default: {
      const never: never = i.state;
      return String(never);
    }
  }
}

function unknownShell(id: string, known: ShellInfo[]): ToolOutput {
  const ids = known.map((k) => k.id).join(", ");
  return { output: `no background command "${id}"${ids ? `; the ids are: ${ids}` : "; none was started in this session"}`, isError: true };
}

export const bashOutputTool: ToolDef<typeof idInput> = {
  name: "bash_output",
  kind: "read",
  description: `Read what a background command (bash with run_in_background) wrote since the last read, and whether it still runs. At most ${BASH_OUTPUT_MAX} characters, the newest.`,
  input: idInput,
  summarize: (i) => `bash_output ${i.id}`,
  run(i, ctx): Promise<ToolOutput> {
    const shells = ctx.shells;
    if (!shells) return Promise.resolve({ output: "background commands are not available here", isError: true });
    const r = shells.read(i.id, BASH_OUTPUT_MAX, ctx.redact);
    if (!r) return Promise.resolve(unknownShell(i.id, shells.list()));
    const skipped = r.skipped > 0 ? `[${r.skipped} earlier bytes not shown]\n` : "";
    const body = r.text === "" ? "(no new output)" : r.text.replace(/\n$/, "");
    return Promise.resolve({ output: `${skipped}${body}\n${stateLine(r.info)}`, isError: false });
  },
};

export const bashStopTool: ToolDef<typeof idInput> = {
  name: "bash_stop",
  // it only ends what this session's own bash started, which asked already
  kind: "read",
  description: "Stop a background command (bash with run_in_background) and every process it started.",
  input: idInput,
  summarize: (i) => `bash_stop ${i.id}`,
  async run(i, ctx): Promise<ToolOutput> {
    const shells = ctx.shells;
    if (!shells) return { output: "background commands are not available here", isError: true };
    const r = await shells.stop(i.id);
    if (!r) return unknownShell(i.id, shells.list());
    return { output: stateLine(r), isError: false };
  },
};
