// One tool call as one line: `▸ bash  npm test   ✓ 2.1s`, and, expanded, the body under it:
// its input (the command as typed, a diff for edits, JSON for the rest), then its output or
// where it stands. The summary is the part of the input a person wants at a glance (the
// command, the path, the pattern).
import { assertNever, type ToolUseBlock } from "../record/types.js";
import { diffForInput, diffLines } from "./diffview.js";
import { inert, inertExact, inertLine } from "./inert.js";
import type { Line } from "./style.js";
import { capText, formatBytes, formatInt, lineWidth, truncate, wrapLine, wrapText } from "./text.js";
import type { ToolCallState } from "./toolcall.js";

/** "receiving": the model is still writing the call's input (`bytes` of it so far) */
type ToolState = "receiving" | "queued" | "running" | "ok" | "error" | "waiting" | "none";

function str(o: Record<string, unknown>, k: string): string | undefined {
  const v = o[k];
  return typeof v === "string" ? v : undefined;
}

/** the short description of a call's input, one line, inert */
export function toolSummary(name: string, input: unknown): string {
  const o = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  let s: string | undefined;
  switch (name) {
    case "bash":
      s = str(o, "command");
      break;
    case "read": {
      const p = str(o, "path");
      const off = typeof o.offset === "number" ? o.offset : undefined;
      const lim = typeof o.limit === "number" ? o.limit : undefined;
      s = p && (off || lim) ? `${p}:${off ?? 1}${lim ? `-${(off ?? 1) + lim - 1}` : ""}` : p;
      break;
    }
    case "write":
    case "edit":
    case "ls":
      s = str(o, "path") ?? (name === "ls" ? "." : undefined);
      break;
    case "glob": {
      const p = str(o, "path");
      s = [str(o, "pattern"), p ? `in ${p}` : ""].filter(Boolean).join(" ");
      break;
    }
    case "grep": {
      const p = str(o, "path");
      const g = str(o, "glob");
      s = [str(o, "pattern"), g ? `(${g})` : "", p ? `in ${p}` : ""].filter(Boolean).join(" ");
      break;
    }
    default:
      break;
  }
  if (s === undefined) {
    try {
      s = JSON.stringify(input) ?? "";
    } catch {
      s = String(input);
    }
  }
  return inertLine(s);
}

export function formatDuration(ms: number): string {
  if (ms < 100) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m}m ${String(s).padStart(2, "0")}s`;
}

interface ToolLineOpts {
  name: string;
  summary: string;
  state: ToolState;
  /** duration when known (live runs), or elapsed so far while running */
  ms?: number;
  /** how much of the input has arrived (receiving) */
  bytes?: number;
  expanded: boolean;
  width: number;
}

function statusPart(o: ToolLineOpts): Line {
  const dur = o.ms !== undefined ? ` ${formatDuration(o.ms)}` : "";
  switch (o.state) {
    case "receiving":
      return [{ t: `receiving input… ${formatBytes(o.bytes ?? 0)}`, s: "running" }];
    case "queued":
      return [{ t: "· queued", s: "dim" }];
    case "running":
      return [{ t: `… running${dur}`, s: "running" }];
    case "waiting":
      return [{ t: "? waiting for permission", s: "warn" }];
    case "ok":
      return [{ t: `✓${dur}`, s: "ok" }];
    case "error":
      return [{ t: `✗${dur}`, s: "err" }];
    case "none":
      return [{ t: "· no result", s: "dim" }];
    default:
      return assertNever(o.state, "tool line state");
  }
}

/** exactly one line no wider than `width` */
export function formatToolLine(o: ToolLineOpts): Line {
  const head: Line = [{ t: o.expanded ? "▾ " : "▸ ", s: "dim" }, { t: o.name, s: "toolName" }, { t: "  " }];
  const status = statusPart(o);
  const gap = 3;
  const room = o.width - lineWidth(head) - lineWidth(status) - gap;
  const summary: Line = o.summary ? truncate([{ t: o.summary, s: "toolArg" }], Math.max(0, room)) : [];
  const used = lineWidth(head) + lineWidth(summary);
  // with no summary the head's own two spaces are the gap
  const pad = summary.length ? Math.max(1, Math.min(gap, o.width - used - lineWidth(status))) : 0;
  const line = [...head, ...summary, { t: " ".repeat(pad) }, ...status];
  return lineWidth(line) > o.width ? truncate(line, o.width) : line;
}

/** output lines shown when a tool call is expanded; the record keeps all of it */
const MAX_EXPANDED_LINES = 300;
/** the body's indent under the line */
const BODY_INDENT = 4;

interface ToolCallView {
  expanded: boolean;
  /** the turn waits for a permission answer: a running call says so */
  waitingForPermission: boolean;
  now: number;
  width: number;
}

/** the call's one line, and its body (indented; none unless expanded) */
export function toolCallLines(b: ToolUseBlock, call: ToolCallState, v: ToolCallView): { line: Line; body: Line[] } {
  const done = call.kind === "done" ? call : undefined;
  const diffText = done?.diff ?? (b.name === "edit" || b.name === "write" ? diffForInput(b.name, b.input) : undefined);
  let summary = toolSummary(b.name, b.input);
  if (diffText && done && !done.isError) {
    const stat = diffStat(diffText);
    if (stat) summary += ` (${stat})`;
  }
  const line = formatToolLine({ name: inert(b.name), summary, ...lineState(call, v.waitingForPermission, v.now), expanded: v.expanded, width: v.width });
  const w = Math.max(4, v.width - BODY_INDENT);
  const indent: Line = [{ t: " ".repeat(BODY_INDENT) }];
  if (!v.expanded) {
    // collapsed, a running command shows its newest line
    const last = call.kind === "running" && call.tail ? liveLines(call.tail, 1) : [];
    return { line, body: last.map((l) => [...indent, ...truncate([{ t: inertLine(l), s: "dim" }], w)]) };
  }
  const body: Line[] = [];
  // the input: a shell command as typed, a diff for edits, JSON for the rest
  const input = b.input && typeof b.input === "object" ? (b.input as Record<string, unknown>) : {};
  if (b.name === "bash" && typeof input.command === "string") {
    body.push(...wrapText(`$ ${inertExact(input.command)}`, w, "toolArg", { hard: true }));
  } else if (diffText) {
    for (const l of capLines(diffLines(diffText), MAX_EXPANDED_LINES)) body.push(...wrapLine(l, w, { hard: true }));
  } else {
    let json: string;
    try {
      json = JSON.stringify(b.input, null, 2) ?? "";
    } catch {
      json = String(b.input);
    }
    const parts = capText(inertExact(json), 40);
    body.push(...wrapText(parts.text, w, "dim", { hard: true }));
    if (parts.more) body.push([{ t: `… ${formatInt(parts.more)} more lines of input`, s: "dim" }]);
  }
  switch (call.kind) {
    case "done": {
      body.push([{ t: call.isError ? "error:" : "output:", s: call.isError ? "err" : "dim" }]);
      const out = capText(inert(call.output).replace(/\n+$/, ""), MAX_EXPANDED_LINES);
      if (out.text) body.push(...wrapText(out.text, w, call.isError ? "err" : undefined, { hard: true, keepIndent: true }));
      else body.push([{ t: "(no output)", s: "dim" }]);
      if (out.more) body.push([{ t: `… ${formatInt(out.more)} more lines (all of it is in the record: /export)`, s: "dim" }]);
      break;
    }
    case "queued":
      body.push([{ t: "(not started yet)", s: "dim" }]);
      break;
    case "running":
      if (call.tail) {
        body.push([{ t: `output so far (${formatBytes(call.bytes ?? 0)}; the newest ${LIVE_LINES} lines):`, s: "dim" }]);
        for (const l of liveLines(call.tail, LIVE_LINES)) body.push(...wrapText(l, w, undefined, { hard: true }));
      } else body.push([{ t: "(running)", s: "dim" }]);
      break;
    case "noResult":
      body.push([{ t: "(no result was stored: the turn ended before this call ran)", s: "dim" }]);
      break;
    default:
      assertNever(call, "tool call state");
  }
  return { line, body: body.map((l) => [...indent, ...l]) };
}

/** lines of a running command's output shown expanded: the newest, as a terminal would */
const LIVE_LINES = 20;

/** the last `n` non-empty lines of `tail`, inert, a carriage return's overwrite applied */
function liveLines(tail: string, n: number): string[] {
  const lines = tail.replace(/\n+$/, "").split("\n").slice(-n);
  // a progress bar redraws its line with \r: what shows is what follows the last one
  return lines.map((l) => inert(l.slice(l.replace(/\r+$/, "").lastIndexOf("\r") + 1).replace(/\r+$/, ""))).filter((l, i, a) => l !== "" || i < a.length - 1);
}

/** what a call's one line says of its state */
function lineState(call: ToolCallState, waitingForPermission: boolean, now: number): { state: ToolState; ms?: number } {
  switch (call.kind) {
    case "queued":
      return { state: "queued" };
    case "running":
      return { state: waitingForPermission ? "waiting" : "running", ms: now - call.startedAt };
    case "done":
      return { state: call.isError ? "error" : "ok", ...(call.ms !== undefined ? { ms: call.ms } : {}) };
    case "noResult":
      return { state: "none" };
    default:
      return assertNever(call, "tool call state");
  }
}

function capLines(ls: Line[], max: number): Line[] {
  if (ls.length <= max) return ls;
  return [...ls.slice(0, max), [{ t: `… ${formatInt(ls.length - max)} more diff lines`, s: "dim" }]];
}

/** "+3 −1" for a unified diff; empty when it changes nothing */
function diffStat(diff: string): string {
  let add = 0;
  let del = 0;
  for (const l of diff.split("\n")) {
    if (l.startsWith("+++") || l.startsWith("---")) continue;
    if (l.startsWith("+")) add++;
    else if (l.startsWith("-")) del++;
  }
  return add || del ? `+${add} −${del}` : "";
}
