// The person's side of shell commands: `!command` / `!!command` typed in the prompt, and
// /shells, which lists the session's background commands and stops one (`/shells stop ID`).
import type { ShellInfo } from "../tools/background.js";
import { assertNever } from "../record/types.js";
import { inert, inertLine } from "./inert.js";
import type { Line } from "./style.js";
import { capText, formatBytes, formatInt, textWidth } from "./text.js";
import { formatDuration } from "./toolline.js";
import type { Controller } from "../session/controller/types.js";
import type { InputEditor, PromptHistory } from "./input.js";
import type { StyleName } from "./style.js";
import type { Transcript } from "./transcript.js";

/** what of the screen these commands use (run-command.ts's ScreenHandle has it) */
interface ScreenHandle {
  controller: Controller;
  transcript: Transcript;
  editor: InputEditor;
  history: PromptHistory;
  flash(text: string, style?: StyleName, turn?: boolean): void;
  fail(what: string, e: unknown): void;
  render(): void;
}

/** "!cmd" → run and add; "!!cmd" → run only; anything else → undefined */
export function parseBang(text: string): { command: string; add: boolean } | undefined {
  const t = text.trimStart();
  if (!t.startsWith("!")) return undefined;
  const add = !t.startsWith("!!");
  return { command: t.slice(add ? 1 : 2).trim(), add };
}

/** output lines shown for a `!!` command; the record keeps nothing of it */
const SHOWN_LINES = 200;

export function runBang(s: ScreenHandle, raw: string, bang: { command: string; add: boolean }): void {
  const c = s.controller;
  if (!bang.command) {
    s.flash("!command runs a shell command and adds its output to the conversation; !!command only shows it", "err");
    return;
  }
  if (!c.shellCommand) {
    s.flash("shell commands are not available in this screen", "err");
    return;
  }
  if (c.busy()) {
    s.flash("a turn is running · run the command after it ends; your text stays here", "warn", true);
    return;
  }
  s.history.add(raw.trim());
  s.editor.clear();
  s.transcript.bottom();
  c.shellCommand(bang.command, bang.add).then(
    (r) => {
      if (!r) return;
      // added: the stored message shows it (the transcript reads the record)
      if (bang.add) return;
      s.transcript.lines(bangLines(bang.command, r.output, r.isError));
      s.transcript.bottom();
      s.render();
    },
    (e: unknown) => s.fail(`!${bang.add ? "" : "!"}${inertLine(bang.command)}`, e),
  );
}

function bangLines(command: string, output: string, isError: boolean): Line[] {
  const out: Line[] = [[{ t: "$ ", s: "dim" }, { t: inertLine(command), s: "toolArg" }, { t: "  (not added to the conversation)", s: "dim" }]];
  const body = capText(inert(output), SHOWN_LINES);
  for (const l of body.text.split("\n")) out.push([{ t: l, ...(isError ? { s: "err" as const } : {}) }]);
  if (body.more) out.push([{ t: `… ${formatInt(body.more)} more lines`, s: "dim" }]);
  return out;
}

function stateText(i: ShellInfo): string {
  switch (i.state) {
    case "running":
      return "running";
    case "exited":
    case "failed":
      return i.status ?? i.state;
    case "stopped":
      return "stopped";
    default:
      return assertNever(i.state, "shell state");
  }
}

/** /shells: each background command, its state, time and output; the way to stop one */
export function shellsLines(list: ShellInfo[], now: number): Line[] {
  if (list.length === 0) return [[{ t: "Background commands", s: "heading" }], [{ t: "none: the model starts one with bash run_in_background", s: "dim" }]];
  const idW = Math.max(...list.map((i) => textWidth(i.id)));
  const out: Line[] = [[{ t: "Background commands", s: "heading" }, { t: " (/shells stop ID stops one; they stop when the session ends)", s: "dim" }]];
  for (const i of list) {
    const state = stateText(i);
    out.push([
      { t: i.id.padEnd(idW + 2), s: "key" },
      { t: state.padEnd(10), s: i.state === "running" ? "running" : "dim" },
      { t: ` ${formatDuration((i.endedAt ?? now) - i.startedAt).padEnd(8)} ${formatBytes(i.bytes).padEnd(9)} `, s: "dim" },
      { t: inertLine(i.command) },
    ]);
  }
  return out;
}

/** /shells [stop ID] */
export function shellsCommand(s: ScreenHandle, arg: string): void {
  const shells = s.controller.shells;
  if (!shells) {
    s.flash("background commands are not available in this screen", "err");
    return;
  }
  const m = /^stop\s+(\S+)$/i.exec(arg.trim());
  if (arg.trim() === "") {
    s.transcript.lines(shellsLines(shells.list(), Date.now()));
    s.transcript.bottom();
    s.render();
    return;
  }
  if (!m) {
    s.flash(`/shells takes nothing (the list) or stop ID (got "${inertLine(arg)}")`, "err");
    return;
  }
  const id = m[1]!;
  shells.stop(id).then(
    (r) => {
      if (!r) s.flash(`no background command "${inertLine(id)}" · /shells lists them`, "err");
      else s.transcript.notice("info", `${r.id} stopped (${inertLine(r.command)})`);
      s.render();
    },
    (e: unknown) => s.fail("/shells stop", e),
  );
}
