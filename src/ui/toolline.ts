// One tool call as one line: `▸ bash  npm test   ✓ 2.1s`. The summary is the part of the
// input a person wants at a glance (the command, the path, the pattern).
import { inertLine } from "./inert.js";
import type { Line } from "./style.js";
import { formatBytes, lineWidth, truncate } from "./text.js";

/** "receiving": the model is still writing the call's input (`bytes` of it so far) */
export type ToolState = "receiving" | "queued" | "running" | "ok" | "error" | "waiting" | "none";

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

export interface ToolLineOpts {
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
    default: {
      const never: never = o.state;
      return [{ t: String(never) }];
    }
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
