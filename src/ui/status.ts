// The lines around the prompt: the status line at the bottom, the hint line above the prompt,
// and the prompt's placeholder. Pure builders: the screen's state in, one styled line of
// exactly the given width out.
import type { AppInfo, ContextStatus } from "../session/controller/types.js";
import type { TurnState } from "../session/turn/events.js";
import type { Usage } from "../provider/types.js";
import { assertNever } from "../record/types.js";
import { cacheHitShare, formatCacheShare } from "../context/format.js";
import { keyLabel, prettyKey, type Keymap } from "./bindings.js";
import { matchingCommands } from "./commands.js";
import type { MentionHint } from "./mention-complete.js";
import { inertLine } from "./inert.js";
import type { Focus } from "./keyrouter.js";
import type { Line, Seg, StyleName } from "./style.js";
import { fit, formatInt, lineWidth, truncate } from "./text.js";

/** a message in the hint line until `until` */
export interface Flash {
  text: string;
  style: StyleName;
  until: number;
  /** it speaks of the running turn ("interrupting…", "a turn is running"): it goes when the
   * turn ends, not when its time is up (it said "interrupting…" over an idle screen) */
  turn?: boolean;
}

export interface Retry {
  attempt: number;
  /** when the retry is due: until then the status says "retrying" */
  until: number;
  reason: string;
}

const STATUS_FILL: Seg = { t: "", s: "status" };

/** the flash to show now; `turnRunning`: a turn (or a /compact) is still running */
export function activeFlash(f: Flash | undefined, now: number, turnRunning = false): Flash | undefined {
  if (!f || f.until <= now) return undefined;
  return f.turn && !turnRunning ? undefined : f;
}

/**
 * The context pane's figure with the window: "≈ 12,400 / 200,000 tokens (chars/4)" for the
 * last request, "next request ≈ 1,200 / 200,000 tokens (chars/4)" for the estimate shown
 * while the pane is pending, "… · window unknown" without a window; undefined until the
 * controller has worked it out.
 */
export function contextText(s: ContextStatus): string | undefined {
  if (!s.estimate) return undefined;
  if (s.window !== undefined) {
    const withWindow = s.estimate.replace(/ tokens/, ` / ${formatInt(s.window)} tokens`);
    return withWindow !== s.estimate ? withWindow : `${s.estimate} of ${formatInt(s.window)}`;
  }
  return `${s.estimate} · window unknown`;
}

/** the status line before the session is open */
export function startingStatus(cols: number): Line {
  return fit([{ t: " starting…", s: "statusAccent" }], cols, STATUS_FILL);
}

export interface StatusInput {
  info: Pick<AppInfo, "provider" | "model" | "keyProblem" | "api" | "reasoningNote">;
  sessionId: string;
  state: TurnState;
  detail?: string | undefined;
  /** a turn is running (the state may say idle between its steps) */
  busy: boolean;
  retry?: Retry | undefined;
  now: number;
  context?: ContextStatus | undefined;
  usage?: Usage | undefined;
  km: Keymap;
}

function stateText(s: StatusInput): { t: string; s: StyleName } {
  if (s.retry && s.retry.until > s.now) return { t: `retrying (attempt ${s.retry.attempt})`, s: "statusWarn" };
  switch (s.state) {
    case "idle":
      return { t: s.busy ? "working" : "idle", s: "status" };
    case "streaming":
      return { t: "streaming", s: "statusAccent" };
    case "tool":
      return { t: `running ${inertLine(s.detail ?? "tool")}`, s: "statusAccent" };
    case "permission":
      return { t: `waiting for permission${s.detail ? ` (${inertLine(s.detail)})` : ""}`, s: "statusWarn" };
    case "compacting":
      return { t: "compacting", s: "statusAccent" };
    default:
      return assertNever(s.state, "turn state");
  }
}

/**
 * The status line: the state first, then the parts by importance (lower prio numbers stay
 * longest); the least important are dropped until the line fits.
 */
export function statusLine(s: StatusInput, cols: number): Line {
  const info = s.info;
  const parts: { line: Line; prio: number }[] = [];
  const sep: Seg = { t: " · ", s: "status" };
  const st = stateText(s);
  parts.push({ line: [{ t: ` ${st.t}`, s: st.s }], prio: 0 });
  if (info.keyProblem) parts.push({ line: [{ t: `⚠ ${inertLine(info.keyProblem)}`, s: "statusWarn" }], prio: 1 });
  parts.push({ line: [{ t: `${info.provider}/${inertLine(info.model)}`, s: "status" }], prio: 3 });
  if (info.reasoningNote) parts.push({ line: [{ t: inertLine(info.reasoningNote), s: "statusWarn" }], prio: 4 });
  parts.push({ line: [{ t: `session ${s.sessionId.slice(0, 8)}`, s: "status" }], prio: 5 });
  const figure = s.context ? contextText(s.context) : undefined;
  if (figure) parts.push({ line: [{ t: figure, s: "status" }], prio: 4 });
  if (s.context) parts.push({ line: [{ t: inertLine(s.context.compaction), s: "status" }], prio: 6 });
  if (s.usage) parts.push({ line: [{ t: `provider usage: ${formatInt(s.usage.inputTokens)} in / ${formatInt(s.usage.outputTokens)} out`, s: "status" }], prio: 7 });
  // the last request's prompt-cache hits, as the provider reported them
  const share = s.usage ? cacheHitShare(s.usage) : undefined;
  if (share !== undefined) parts.push({ line: [{ t: formatCacheShare(share), s: "status" }], prio: 6 });
  parts.push({ line: [{ t: `${keyLabel(s.km, "context.toggle")} context`, s: "statusAccent" }], prio: 2 });
  if (info.api) parts.push({ line: [{ t: `api ${info.api.url}`, s: "status" }], prio: 6 });
  let shown = parts;
  const width = (ps: typeof parts): number => ps.reduce((a, p) => a + lineWidth(p.line), 0) + (ps.length - 1) * 3 + 1;
  while (width(shown) > cols && shown.some((p) => p.prio > 2)) {
    const worst = shown.reduce((a, p) => (p.prio > a.prio ? p : a));
    shown = shown.filter((p) => p !== worst);
  }
  // still too wide: the key problem sentence gives way (it is in the transcript in full)
  const problem = shown.find((p) => p.prio === 1);
  if (problem && width(shown) > cols) {
    const rest = width(shown) - lineWidth(problem.line);
    problem.line = truncate(problem.line, Math.max(8, cols - rest));
  }
  const out: Line = [];
  shown.forEach((p, i) => {
    if (i > 0) out.push(sep);
    out.push(...p.line);
  });
  return fit(out, cols, STATUS_FILL);
}

/** a rule that ends in `right`, right-aligned */
function ruleTo(left: Line, right: Line, cols: number): Line {
  const used = lineWidth(left);
  const r = truncate(right, Math.max(0, cols - used - 2));
  const gap = Math.max(1, cols - used - lineWidth(r) - 1);
  return [...left, { t: "─".repeat(Math.max(0, gap - 1)) + " ", s: "rule" }, ...r];
}

/** the hint line before the session is open: what Enter will do, and any flash */
export function startingHint(h: { flash: Flash | undefined; held: boolean; km: Keymap }, cols: number): Line {
  const right: Line = h.flash
    ? [{ t: h.flash.text, s: h.flash.style }]
    : h.held
      ? [{ t: `sent once the session is open · ${keyLabel(h.km, "turn.interrupt")} keeps it in the prompt`, s: "warn" }]
      : [{ t: `opening the session · ${keyLabel(h.km, "input.submit")} sends once it is open`, s: "hint" }];
  const r = truncate(right, Math.max(0, cols - 2));
  return [{ t: "─".repeat(Math.max(0, cols - lineWidth(r) - 2)) + " ", s: "rule" }, ...r];
}

interface HintInput {
  /** images waiting to go with the next prompt */
  attachments: number;
  flash: Flash | undefined;
  focus: Focus;
  /** the prompt's text as typed */
  prompt: string;
  /** the transcript follows its bottom (nothing newer is hidden below) */
  following: boolean;
  km: Keymap;
  /** the files matching the `@word` being typed */
  mentions?: MentionHint | undefined;
}

/** `@src/a.ts  src/b.ts   Tab completes`, or why there is nothing to complete */
function mentionHintLine(m: MentionHint, km: Keymap): Line {
  if (m.loading) return [{ t: "@ listing the workspace's files…", s: "dim" }];
  const [first, ...rest] = m.paths;
  if (first === undefined) return [{ t: "@ no file in the workspace matches", s: "warn" }];
  const out: Line = [{ t: `@${inertLine(first)}`, s: "key" }];
  for (const p of rest) out.push({ t: `  ${inertLine(p)}`, s: "hint" });
  out.push({ t: `   ${keyLabel(km, "input.complete")} completes`, s: "dim" });
  return out;
}

/** the hint line: attachments on the left; a flash, the command being typed, or the keys that matter where the focus is */
export function hintLine(h: HintInput, cols: number): Line {
  const km = h.km;
  const left: Line = [];
  if (h.attachments) {
    const n = h.attachments;
    left.push({ t: `📎 ${n} image${n === 1 ? "" : "s"} `, s: "key" }, { t: "(/image clear) ", s: "dim" });
  }
  let right: Line;
  if (h.flash) right = [{ t: h.flash.text, s: h.flash.style }];
  else if (h.focus === "input" && h.mentions) right = mentionHintLine(h.mentions, km);
  else if (h.focus === "input" && h.prompt.startsWith("/") && !h.prompt.includes("\n")) {
    const matches = matchingCommands(h.prompt);
    if (matches.length === 0) right = [{ t: "no such command · /help lists them · //text sends a message starting with /", s: "warn" }];
    else {
      right = [];
      const first = matches[0]!;
      right.push({ t: `/${first.name}`, s: "key" });
      if (first.args) right.push({ t: ` ${first.args}`, s: "dim" });
      right.push({ t: ` — ${first.help}`, s: "hint" });
      for (const c of matches.slice(1)) right.push({ t: `  /${c.name}`, s: "hint" });
      if (matches.length > 1 || !h.prompt.includes(" ")) right.push({ t: `   ${keyLabel(km, "input.complete")} completes`, s: "dim" });
    }
  } else if (!h.following) {
    right = [{ t: `↓ more below · ${keyLabel(km, "transcript.pageDown")} or ${prettyKey(km.bindings["transcript.bottom"][0] ?? "end")} in the transcript to follow`, s: "warn" }];
  } else if (h.focus === "transcript") {
    right = [
      { t: `transcript: ${keyLabel(km, "transcript.selectPrev")}/${keyLabel(km, "transcript.selectNext")} select · ${keyLabel(km, "transcript.toggleExpand")} expand · ${keyLabel(km, "input.focus")} back to the prompt`, s: "hint" },
    ];
  } else if (h.focus === "context") {
    right = [{ t: `context pane · typing goes to the prompt · ${keyLabel(km, "context.toggle")} or ${keyLabel(km, "context.close")} closes`, s: "hint" }];
  } else {
    right = [{ t: `${keyLabel(km, "input.submit")} send · ${keyLabel(km, "input.newline")} newline · ${keyLabel(km, "transcript.focus")} transcript · /help`, s: "hint" }];
  }
  return ruleTo(left, right, cols);
}

/** the prompt's placeholder when it is empty: "Type a request" only once a request can go out (tests and people wait for it) */
export function placeholder(attached: boolean, busy: boolean): string {
  if (!attached) return "Starting… type away; what you type is kept";
  return busy ? "Esc interrupts · type your next request" : "Type a request, or / for commands";
}
