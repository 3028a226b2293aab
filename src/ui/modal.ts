// Boxes drawn over the transcript: the permission question and the session picker. Pure:
// each returns the lines of a bordered box; the app decides where it goes. Key names come
// from the keymap in force. Until a box is ready for keys (focus.ts, BoxGuard) its footer says
// where typing goes instead of listing the choices, so the choices appear when they work.
import type { SessionInfo } from "../record/types.js";
import type { PermissionRequest } from "../tools/types.js";
import { diffForInput, diffLines } from "./diffview.js";
import { inertExact, inertLine } from "./inert.js";
import { openMark } from "./session-list.js";
import type { Line } from "./style.js";
import { fit, formatInt, lineWidth, restyle, textWidth, truncate, wrapLine, wrapText } from "./text.js";

export interface Box {
  width: number;
  lines: Line[];
}

/** a bordered box of exactly `width` × lines.length cells */
export function frame(title: string, body: Line[], footer: Line[], width: number, height: number): Box {
  const inner = Math.max(1, width - 4);
  const top: Line = [{ t: "╭─", s: "border" }];
  const t = truncate([{ t: ` ${title} `, s: "title" }], Math.max(0, width - 4));
  top.push(...t, { t: "─".repeat(Math.max(0, width - 3 - lineWidth(t))) + "╮", s: "border" });
  const row = (l: Line): Line => [{ t: "│ ", s: "border" }, ...fit(l, inner), { t: " │", s: "border" }];
  const bodyRows = Math.max(0, height - 2 - footer.length - (footer.length ? 1 : 0));
  const lines: Line[] = [top];
  for (let i = 0; i < bodyRows; i++) lines.push(row(body[i] ?? []));
  if (footer.length) {
    lines.push([{ t: "├" + "─".repeat(Math.max(0, width - 2)) + "┤", s: "border" }]);
    for (const f of footer) lines.push(row(f));
  }
  lines.push([{ t: "╰" + "─".repeat(Math.max(0, width - 2)) + "╯", s: "border" }]);
  return { width, lines };
}

const VERB: Record<PermissionRequest["kind"], string> = {
  exec: "run a command",
  write: "change a file",
  read: "read",
};

/** the full body of a permission question (the app scrolls it when it is taller than the box) */
export function permissionBody(req: PermissionRequest, width: number): Line[] {
  const w = Math.max(8, width);
  const out: Line[] = [];
  out.push(...wrapLine([{ t: inertLine(req.tool), s: "toolName" }, { t: ` wants to ${VERB[req.kind]}:` }], w));
  const input = req.input && typeof req.input === "object" ? (req.input as Record<string, unknown>) : {};
  // a command is shown once, whole, below; its one-line summary would only repeat its start
  const commandBelow = req.tool === "bash" && typeof input.command === "string";
  if (!commandBelow || req.unsandboxed !== undefined) out.push(...wrapText(inertLine(inertExact(req.summary)), w, req.unsandboxed !== undefined ? "warn" : "toolArg"));
  if (req.unsandboxed !== undefined) out.push(...wrapText(`allows: ${inertLine(inertExact(req.unsandboxed))}`, w, "warn"));
  if (req.outsideWorkspace) out.push(...wrapText(`outside the workspace: ${inertLine(inertExact(req.outsideWorkspace))}`, w, "warn"));
  if (req.sessionScope !== undefined) out.push(...wrapText(`"allow for this session" allows: ${inertLine(inertExact(req.sessionScope))}`, w, "dim"));
  out.push([]);
  const diff = req.diff ?? diffForInput(req.tool, req.input);
  if (req.tool === "bash" && typeof input.command === "string") {
    // what is approved is what runs: nothing of the command is hidden or removed
    out.push(...wrapText(`$ ${inertExact(input.command)}`, w, "toolArg", { hard: true }));
  } else if (diff) {
    for (const l of diffLines(diff)) out.push(...wrapLine(l, w, { hard: true }));
  } else {
    let json: string;
    try {
      json = JSON.stringify(req.input, null, 2) ?? "";
    } catch {
      json = String(req.input);
    }
    out.push(...wrapText(inertExact(json), w, "dim", { hard: true }));
  }
  return out;
}

/** the footer of a box that is not ready for keys yet */
export const NOT_READY = "typing goes to the prompt · choices in a moment";

/**
 * Choices ("y allow once") laid out in rows of `width`, three spaces apart, each kept whole on
 * one row (wrapped only when it alone is wider), so a narrow terminal never cuts one off.
 */
export function choiceRows(choices: Line[], width: number): Line[] {
  const out: Line[] = [];
  let row: Line = [];
  for (const c of choices) {
    const w = lineWidth(c);
    if (row.length && lineWidth(row) + 3 + w <= width) {
      row.push({ t: "   " }, ...c);
      continue;
    }
    if (row.length) out.push(row);
    row = [];
    if (w <= width) row = [...c];
    else out.push(...wrapLine(c, width));
  }
  if (row.length) out.push(row);
  return out;
}

interface PermissionKeys {
  once: string;
  session: string;
  tool: string;
  deny: string;
  /** how to scroll a long question: "↑/↓ PgUp/PgDn" */
  scroll: string;
}

export function permissionBox(
  req: PermissionRequest,
  keys: PermissionKeys,
  more: number,
  scroll: number,
  cols: number,
  rows: number,
  ready = true,
): { box: Box; maxScroll: number } {
  const width = Math.max(20, Math.min(cols - 2, 110));
  const body = permissionBody(req, width - 4);
  // every choice stays on screen however narrow the box: they wrap (40 columns: three rows)
  const footer: Line[] = ready
    ? choiceRows(
        [
          [{ t: keys.once, s: "key" }, { t: " allow once" }],
          [{ t: keys.session, s: "key" }, { t: " allow for this session" }],
          ...(req.wholeTool !== undefined ? [[{ t: keys.tool, s: "key" }, { t: ` ${inertLine(req.wholeTool)}` }] satisfies Line] : []),
          [{ t: keys.deny, s: "key" }, { t: " deny" }],
        ],
        width - 4,
      )
    : wrapText(NOT_READY, width - 4, "dim");
  if (more > 0) footer.push(...wrapText(`${formatInt(more)} more question${more === 1 ? "" : "s"} waiting`, width - 4, "dim"));
  const chrome = 2 + 1 + footer.length;
  const height = Math.max(chrome + 1, Math.min(rows - 2, body.length + chrome));
  const room = height - chrome;
  const maxScroll = Math.max(0, body.length - room);
  const s = Math.min(Math.max(0, scroll), maxScroll);
  let visible = body.slice(s, s + room);
  if (maxScroll > 0) {
    const below = body.length - (s + room);
    const note = below > 0 ? `↓ ${formatInt(below)} more lines (${keys.scroll})` : "↑ scrolled to the end";
    visible = [...visible.slice(0, room - 1), [{ t: note, s: "dim" }]];
  }
  return { box: frame("Permission needed", visible, footer, width, height), maxScroll };
}

interface SessionsKeys {
  /** "↑/↓" */
  move: string;
  choose: string;
  close: string;
}

export function sessionsBox(sessions: readonly SessionInfo[], current: string, index: number, cols: number, rows: number, keys: SessionsKeys, ready = true): Box {
  const width = Math.max(30, Math.min(cols - 2, 100));
  const inner = width - 4;
  // the choices wrap rather than being cut at a narrow width; the list gets the rows left
  const footer: Line[] = ready
    ? choiceRows(
        [
          [{ t: keys.move, s: "key" }, { t: " choose" }],
          [{ t: keys.choose, s: "key" }, { t: " switch" }],
          [{ t: keys.close, s: "key" }, { t: " cancel" }],
        ],
        inner,
      )
    : wrapText(NOT_READY, inner, "dim");
  const chrome = 3 + footer.length;
  const height = Math.max(chrome + 1, Math.min(rows - 2, sessions.length + chrome));
  const room = height - chrome;
  const start = Math.min(Math.max(0, index - room + 1), Math.max(0, sessions.length - room));
  const body: Line[] = [];
  const end = Math.min(sessions.length, start + room);
  // "(current)", or where a session is open elsewhere; the column as wide as the rows shown
  // need. Where the title would get under 12 columns, the date goes and the marks shorten.
  const shown = sessions.slice(start, end);
  const longTag = (s: SessionInfo): string => (s.id === current ? "(current)" : (openMark(s) ?? ""));
  const roomy = inner - 28 - Math.max(9, ...shown.map((s) => longTag(s).length)) - 2 >= 12;
  const tag = (s: SessionInfo): string => (roomy || !s.open || s.id === current ? longTag(s) : s.open.detached ? "detached" : "elsewhere");
  const tagW = Math.max(9, ...shown.map((s) => tag(s).length));
  for (let i = start; i < end; i++) {
    const s = sessions[i]!;
    const when = s.updatedAt.replace("T", " ").replace(/:\d\d(\.\d+)?Z?$/, "");
    const right = roomy ? `${s.id.slice(0, 8)}  ${when.padEnd(16)}  ` : `${s.id.slice(0, 8)}  `;
    const mark = tag(s).padEnd(tagW);
    const titleW = Math.max(4, inner - textWidth(right) - tagW - 2);
    const title = truncate([{ t: inertLine(s.title) || "(untitled)" }], titleW);
    const line: Line = [...fit(title, titleW), { t: "  " }, { t: right, s: "dim" }, { t: mark, s: s.open ? "warn" : "dim" }];
    body.push(i === index ? restyle(fit(line, inner), { inv: true }) : line);
  }
  if (sessions.length === 0) body.push([{ t: "no sessions yet", s: "dim" }]);
  return frame(`Sessions (${formatInt(sessions.length)})`, body, footer, width, height);
}
