// The lines around the prompt: the status line at the bottom, the hint line above the prompt,
// and the prompt's placeholder. Pure builders: the screen's state in, one styled line of
// exactly the given width out.
import type { AppInfo, ContextStatus } from "../session/controller/types.js";
import type { TurnState } from "../session/turn/events.js";
import type { Usage } from "../provider/types.js";
import { assertNever } from "../record/types.js";
import { cacheHitShare, formatCacheShare } from "../context/format.js";
import { keyLabel, prettyKey, type Keymap } from "./bindings.js";
import { matchingCommands, type CommandSpec } from "./commands.js";
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

/** what the hint line says while /model waits for the servers' lists; it goes when the list opens */
export const LISTING_MODELS = "listing models…";

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
  info: Pick<AppInfo, "provider" | "model" | "keyProblem" | "api" | "reasoningNote" | "modelNote" | "sessionCost"> &
    Partial<Pick<AppInfo, "permission" | "sandbox">>;
  sessionId: string;
  state: TurnState;
  detail?: string | undefined;
  /** streaming, and nothing of the answer has arrived yet */
  waiting?: boolean;
  /** a turn is running (the state may say idle between its steps) */
  busy: boolean;
  retry?: Retry | undefined;
  now: number;
  context?: ContextStatus | undefined;
  usage?: Usage | undefined;
  /** the model's task list in one line ("tasks 2/5 · now: …"), when it keeps one */
  tasks?: string | undefined;
  km: Keymap;
}

function stateText(s: StatusInput): { t: string; s: StyleName } {
  if (s.retry && s.retry.until > s.now) return { t: `retrying (attempt ${s.retry.attempt})`, s: "statusWarn" };
  switch (s.state) {
    case "idle":
      return { t: s.busy ? "working" : "idle", s: "status" };
    case "streaming":
      // a request can wait seconds for its first byte: that is the provider's time, not streaming
      return s.waiting ? { t: `waiting for ${inertLine(s.info.provider)}`, s: "statusAccent" } : { t: "streaming", s: "statusAccent" };
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

/** tokens in few characters: 950, 34.8k, 200k, 1.2M */
export function shortTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) {
    const k = n / 1000;
    return k < 100 ? `${Number(k.toFixed(1))}k` : `${Math.round(k)}k`;
  }
  const m = n / 1_000_000;
  return m < 100 ? `${Number(m.toFixed(1))}M` : `${Math.round(m)}M`;
}

/**
 * The figure in ever fewer characters, longest first: the pane's words with the method,
 * then without it, then "next 34.8k/200k". A request over the window says so in every form.
 */
export function figureForms(s: ContextStatus): Line[] {
  const full = contextText(s);
  if (!full) return [];
  const f = s.figure;
  if (!f) return [[{ t: full, s: "status" }]];
  const over = s.window !== undefined && f.tokens > s.window;
  const style: StyleName = over ? "statusWarn" : "status";
  const label = f.basis === "next request" ? "next " : "";
  const win = s.window !== undefined ? ` / ${formatInt(s.window)}` : "";
  const shortWin = s.window !== undefined ? `/${shortTokens(s.window)}` : "";
  const overWords = over ? " · over the window" : "";
  return [
    [{ t: `${full}${overWords}`, s: style }],
    [{ t: `${label}≈ ${formatInt(f.tokens)}${win} tokens${overWords}`, s: style }],
    [{ t: `${label}≈ ${shortTokens(f.tokens)}${shortWin}${over ? " over" : ""}`, s: style }],
  ];
}

interface Part {
  /** the part in ever fewer characters, longest first */
  forms: Line[];
  /** lower stays longer: 0-2 are always shown, the rest as they fit */
  prio: number;
}

/**
 * The status line: the state first, then the parts in their places. What is always shown
 * (prio 0-2) goes first; then, by importance, every other part that fits in its shortest form;
 * then each shown part, by importance, in its longest form that still fits. So a part is
 * dropped only when even its shortest form has no room, and a narrower form comes before
 * a drop. Pure: tested at every width.
 */
export function statusLine(s: StatusInput, cols: number): Line {
  const info = s.info;
  const parts: Part[] = [];
  const one = (t: string, style: StyleName = "status"): Line[] => [[{ t, s: style }]];
  const st = stateText(s);
  parts.push({ forms: [[{ t: ` ${st.t}`, s: st.s }]], prio: 0 });
  if (info.keyProblem) parts.push({ forms: one(`! ${inertLine(info.keyProblem)}`, "statusWarn"), prio: 1 });
  const model = inertLine(info.model);
  parts.push({ forms: [...one(`${info.provider}/${model}`), ...one(model)], prio: 3 });
  if (info.modelNote) parts.push({ forms: one(inertLine(info.modelNote), "statusWarn"), prio: 5 });
  // the permission mode and where commands run: what the model may do unasked
  if (info.permission) parts.push({ forms: one(info.permission, info.permission === "auto" ? "statusWarn" : "status"), prio: 3 });
  // running unsandboxed is a warning and stays with the model; the usual mode gives way to the
  // token figure and the session id on a narrow screen
  if (info.sandbox) parts.push({ forms: one(info.sandbox, info.sandbox === "UNSANDBOXED" ? "statusWarn" : "status"), prio: info.sandbox === "UNSANDBOXED" ? 3 : 3.5 });
  if (info.reasoningNote) parts.push({ forms: one(inertLine(info.reasoningNote), "statusWarn"), prio: 5 });
  const id = s.sessionId.slice(0, 8);
  parts.push({ forms: [...one(`session ${id}`), ...one(id)], prio: 4 });
  const figure = s.context ? figureForms(s.context) : [];
  if (figure.length > 0) parts.push({ forms: figure, prio: 3 });
  if (s.context?.compaction) parts.push({ forms: one(inertLine(s.context.compaction)), prio: 6 });
  if (info.sessionCost) parts.push({ forms: one(`${info.sessionCost} list`), prio: 5 });
  if (s.usage) {
    const u = s.usage;
    parts.push({ forms: [...one(`provider usage: ${formatInt(u.inputTokens)} in / ${formatInt(u.outputTokens)} out`), ...one(`usage ${shortTokens(u.inputTokens)}/${shortTokens(u.outputTokens)}`)], prio: 7 });
  }
  // the last request's prompt-cache hits, as the provider reported them
  const share = s.usage ? cacheHitShare(s.usage) : undefined;
  if (share !== undefined) parts.push({ forms: one(formatCacheShare(share)), prio: 6 });
  parts.push({ forms: one(`${keyLabel(s.km, "context.toggle")} context`, "statusAccent"), prio: 2 });
  // the plan the model works to is core: placed with the model and the figure, and whole, as
  // "now: …" is what it says (a counts-only form would be placed first and never grow back)
  if (s.tasks) parts.push({ forms: one(inertLine(s.tasks.length > 60 ? s.tasks.slice(0, 59) + "…" : s.tasks)), prio: 5 });
  if (info.api) parts.push({ forms: one(`api ${info.api.url}`), prio: 6 });

  const SEP = 3;
  // the form each shown part takes (index into its forms); absent: not shown
  const chosen = new Map<Part, number>();
  const used = (): number => {
    let w = 1; // one column stays free at the end
    let n = 0;
    for (const [p, i] of chosen) {
      w += lineWidth(p.forms[i]!);
      n++;
    }
    return w + Math.max(0, n - 1) * SEP;
  };
  for (const p of parts) if (p.prio <= 2) chosen.set(p, 0);
  const byImportance = parts.filter((p) => p.prio > 2).sort((a, b) => a.prio - b.prio);
  // the important ones (up to the session id) first, each as short as it goes; then they grow;
  // then the rest, each as long as fits
  const core = byImportance.filter((p) => p.prio <= 5);
  for (const p of core) {
    const last = p.forms.length - 1;
    if (used() + SEP + lineWidth(p.forms[last]!) <= cols) chosen.set(p, last);
  }
  for (const p of core) {
    const at = chosen.get(p);
    if (at === undefined) continue;
    for (let i = 0; i < at; i++) {
      const grown = used() - lineWidth(p.forms[at]!) + lineWidth(p.forms[i]!);
      if (grown <= cols) {
        chosen.set(p, i);
        break;
      }
    }
  }
  for (const p of byImportance.filter((q) => q.prio > 5)) {
    const i = p.forms.findIndex((f) => used() + SEP + lineWidth(f) <= cols);
    if (i !== -1) chosen.set(p, i);
  }
  const shown = parts.filter((p) => chosen.has(p)).map((p) => ({ line: p.forms[chosen.get(p)!]!, prio: p.prio }));
  // still too wide: the key problem sentence gives way (it is in the transcript in full)
  const problem = shown.find((p) => p.prio === 1);
  const width = (): number => shown.reduce((a, p) => a + lineWidth(p.line), 0) + (shown.length - 1) * SEP;
  if (problem && width() > cols) {
    const rest = width() - lineWidth(problem.line);
    problem.line = truncate(problem.line, Math.max(8, cols - rest));
  }
  const sep: Seg = { t: " · ", s: "status" };
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
  /** the custom commands, completed and hinted as the built-ins are */
  commands?: readonly CommandSpec[] | undefined;
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
    left.push({ t: `[${n} image${n === 1 ? "" : "s"}] `, s: "key" }, { t: "(/image clear) ", s: "dim" });
  }
  let right: Line;
  if (h.flash) right = [{ t: h.flash.text, s: h.flash.style }];
  else if (h.focus === "input" && h.mentions) right = mentionHintLine(h.mentions, km);
  else if (h.focus === "input" && h.prompt.startsWith("/") && !h.prompt.includes("\n")) {
    const matches = matchingCommands(h.prompt, h.commands);
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
