// The actions and their keys: the built-in bindings, the places keys are read in (PLACES),
// key names in canonical form, and the labels hints show. Every key the screen acts on is an
// action here, prompt editing and the boxes included, so a keymap can rebind any of them;
// only typing a character is not. Pure and part of the first frame (the default keys and
// their labels); reading keymap files and the config's overrides is keymap.ts, loaded with
// the session.

/** the prompt's cursor and deletion keys */
export const EDIT_ACTIONS = [
  "input.left",
  "input.right",
  "input.wordLeft",
  "input.wordRight",
  "input.home",
  "input.end",
  "input.backspace",
  "input.deleteWordBack",
  "input.deleteForward",
  "input.killToEnd",
  "input.killToStart",
] as const;

export const ACTIONS = [
  "input.submit",
  "input.steer",
  "input.newline",
  "input.historyPrev",
  "input.historyNext",
  "input.complete",
  "input.cancel",
  ...EDIT_ACTIONS,
  "input.focus",
  "queue.edit",
  "queue.remove",
  "turn.interrupt",
  "app.quit",
  "app.quitIfEmpty",
  "app.redraw",
  "app.suspend",
  "permission.cycle",
  "context.toggle",
  "tasks.show",
  "context.close",
  "context.focusPrompt",
  "context.nextPage",
  "context.prevPage",
  "context.nextSection",
  "context.prevSection",
  "context.scrollUp",
  "context.scrollDown",
  "transcript.focus",
  "transcript.pageUp",
  "transcript.pageDown",
  "transcript.scrollUp",
  "transcript.scrollDown",
  "transcript.top",
  "transcript.bottom",
  "transcript.selectPrev",
  "transcript.selectNext",
  "transcript.toggleExpand",
  "permission.allowOnce",
  "permission.allowSession",
  "permission.deny",
  "permission.scrollUp",
  "permission.scrollDown",
  "permission.pageUp",
  "permission.pageDown",
  "sessions.prev",
  "sessions.next",
  "sessions.pageUp",
  "sessions.pageDown",
  "sessions.first",
  "sessions.last",
  "sessions.choose",
  "sessions.close",
  "rewind.diff",
] as const;

export type Action = (typeof ACTIONS)[number];

export interface Keymap {
  /** "default", "vim", "emacs", or the file's path */
  name: string;
  bindings: Record<Action, string[]>;
  /**
   * the terminal reports the mouse wheel (wheelup/wheeldown keys). On unless a keymap or the
   * config's "keys" say "mouse": "off": a terminal in alternate-scroll mode (VTE, iTerm2,
   * Windows Terminal, Konsole, xterm's alternateScroll) otherwise sends arrow keys for the
   * wheel, which recall earlier prompts. Reporting the wheel makes the terminal report clicks
   * too, so a plain drag no longer selects text; Shift-drag does, in most terminals.
   */
  mouse: boolean;
}

/** what each action does, for /help */
export const ACTION_HELP: Record<Action, string> = {
  "input.submit": "send the prompt (during a turn: queue it, sent when the turn ends)",
  "input.steer": "during a turn: send the prompt into it, at its next model call",
  "input.newline": "new line in the prompt",
  "input.historyPrev": "earlier prompt (on the first line)",
  "input.historyNext": "later prompt (on the last line)",
  "input.complete": "complete a slash command",
  "input.cancel": "dismiss a message (over a narrow screen: close the context pane); twice on an empty prompt: rewind to an earlier prompt",
  "input.left": "prompt: cursor left",
  "input.right": "prompt: cursor right",
  "input.wordLeft": "prompt: word left",
  "input.wordRight": "prompt: word right",
  "input.home": "prompt: start of the line",
  "input.end": "prompt: end of the line",
  "input.backspace": "prompt: delete left",
  "input.deleteWordBack": "prompt: delete the word left",
  "input.deleteForward": "prompt: delete right",
  "input.killToEnd": "prompt: delete to the end of the line",
  "input.killToStart": "prompt: delete to the start of the line",
  "input.focus": "transcript: back to the prompt",
  "queue.edit": "take the last queued message back into the prompt",
  "queue.remove": "drop the last queued message",
  "turn.interrupt": "interrupt the running turn",
  "app.quit": "interrupt the running turn; else clear the prompt; on an empty prompt, twice: quit",
  "app.quitIfEmpty": "quit when the prompt is empty",
  "app.redraw": "redraw the screen",
  "permission.cycle": "next permission mode: ask, accept-edits, plan (Claude Code's Alt-M; bind S-tab here to have Shift-Tab)",
  "app.suspend": "suspend (the shell's fg brings it back)",
  "context.toggle": "open/close the context pane",
  "tasks.show": "show the model's task list (/todo)",
  "context.close": "close the context pane",
  "context.focusPrompt": "context: to the prompt, the pane stays open",
  "context.nextPage": "context: next page",
  "context.prevPage": "context: previous page",
  "context.nextSection": "context: next section",
  "context.prevSection": "context: previous section",
  "context.scrollUp": "context: scroll the page up",
  "context.scrollDown": "context: scroll the page down",
  "transcript.focus": "move to the transcript (select tool calls)",
  "transcript.pageUp": "scroll the transcript up",
  "transcript.pageDown": "scroll the transcript down",
  "transcript.scrollUp": "transcript: scroll up a few lines",
  "transcript.scrollDown": "transcript: scroll down a few lines",
  "transcript.top": "transcript: top",
  "transcript.bottom": "transcript: bottom (follow)",
  "transcript.selectPrev": "transcript: previous tool call / thinking",
  "transcript.selectNext": "transcript: next tool call / thinking",
  "transcript.toggleExpand": "transcript: expand/collapse the selected item",
  "permission.allowOnce": "permission: allow once",
  "permission.allowSession": "permission: allow for this session",
  "permission.deny": "permission: deny",
  "permission.scrollUp": "permission: scroll the question up",
  "permission.scrollDown": "permission: scroll the question down",
  "permission.pageUp": "permission: scroll the question a page up",
  "permission.pageDown": "permission: scroll the question a page down",
  "sessions.prev": "session picker: previous",
  "sessions.next": "session picker: next",
  "sessions.pageUp": "session picker: a page up",
  "sessions.pageDown": "session picker: a page down",
  "sessions.first": "session picker: first",
  "sessions.last": "session picker: last",
  "sessions.choose": "session picker: switch to the selected session",
  "sessions.close": "session picker: cancel",
  "rewind.diff": "rewind: show or hide the diffs of what will change",
};

/**
 * The built-in bindings; keymaps/default.json says the same (a unit test keeps them equal).
 * No letter acts in the context pane: focus returns there after a prompt is sent, and the next
 * prompt's first letter must not close it or page it. Enter does not answer a permission
 * question: it ends every prompt typed, so it is the likeliest key to arrive as type-ahead.
 */
export const DEFAULT_BINDINGS: Record<Action, string[]> = {
  "input.submit": ["enter"],
  "input.steer": ["C-s"],
  "input.newline": ["M-enter", "C-j"],
  "input.historyPrev": ["up"],
  "input.historyNext": ["down"],
  "input.complete": ["tab"],
  "input.cancel": ["escape"],
  "input.left": ["left", "C-b"],
  "input.right": ["right", "C-f"],
  "input.wordLeft": ["M-left", "C-left", "M-b"],
  "input.wordRight": ["M-right", "C-right", "M-f"],
  "input.home": ["home", "C-a"],
  "input.end": ["end", "C-e"],
  "input.backspace": ["backspace"],
  "input.deleteWordBack": ["M-backspace", "C-w"],
  "input.deleteForward": ["delete"],
  "input.killToEnd": ["C-k"],
  "input.killToStart": ["C-u"],
  "input.focus": ["escape", "i"],
  "queue.edit": ["M-e"],
  "queue.remove": ["M-d"],
  "turn.interrupt": ["escape"],
  "app.quit": ["C-c"],
  "app.quitIfEmpty": ["C-d"],
  "app.redraw": ["C-l"],
  "permission.cycle": ["M-m"],
  "app.suspend": ["C-z"],
  "context.toggle": ["C-o"],
  "tasks.show": ["C-t"],
  "context.close": ["escape"],
  "context.focusPrompt": ["tab"],
  "context.nextPage": ["right"],
  "context.prevPage": ["left"],
  "context.nextSection": ["down"],
  "context.prevSection": ["up"],
  "context.scrollUp": ["pageup", "wheelup"],
  "context.scrollDown": ["pagedown", "wheeldown"],
  "transcript.focus": ["S-tab", "M-up"],
  "transcript.pageUp": ["pageup"],
  "transcript.pageDown": ["pagedown"],
  "transcript.scrollUp": ["wheelup"],
  "transcript.scrollDown": ["wheeldown"],
  "transcript.top": ["home", "g"],
  "transcript.bottom": ["end", "S-g"],
  "transcript.selectPrev": ["up", "k"],
  "transcript.selectNext": ["down", "j"],
  "transcript.toggleExpand": ["enter", "tab", "space"],
  "permission.allowOnce": ["y"],
  "permission.allowSession": ["a"],
  "permission.deny": ["n", "escape"],
  "permission.scrollUp": ["up", "k", "wheelup"],
  "permission.scrollDown": ["down", "j", "wheeldown"],
  "permission.pageUp": ["pageup"],
  "permission.pageDown": ["pagedown"],
  "sessions.prev": ["up", "k", "wheelup"],
  "sessions.next": ["down", "j", "wheeldown"],
  "sessions.pageUp": ["pageup"],
  "sessions.pageDown": ["pagedown"],
  "sessions.first": ["home"],
  "sessions.last": ["end"],
  "sessions.choose": ["enter"],
  "sessions.close": ["escape", "q"],
  "rewind.diff": ["d"],
};

/** where keys are read: the focus's three places and the two boxes */
export type Place = "prompt" | "transcript" | "context" | "permission" | "sessions" | "rewind";

interface PlaceSpec {
  /** for warnings: "in the context pane" */
  label: string;
  /** the actions read in this place, in the order the key router tries them */
  actions: readonly Action[];
  /**
   * actions that act only in some states and otherwise let the key through to the next one
   * (Esc interrupts only while a turn runs): sharing a key with them is by design
   */
  conditional: readonly Action[];
}

/** read before any place's own keys (not in a box, where only quitting and suspending are) */
const GLOBAL_ACTIONS: readonly Action[] = ["app.quit", "app.suspend", "context.toggle", "tasks.show", "app.redraw", "permission.cycle"];
const BOX_GLOBAL_ACTIONS: readonly Action[] = ["app.quit", "app.suspend"];


// The actions read in each place, in the order the key router tries them.
export const PROMPT_ACTIONS = [
  "turn.interrupt",
  "input.submit",
  "input.steer",
  "queue.edit",
  "queue.remove",
  "input.newline",
  "input.historyPrev",
  "input.historyNext",
  "input.complete",
  "transcript.focus",
  "transcript.pageUp",
  "transcript.pageDown",
  "app.quitIfEmpty",
  "input.cancel",
  ...EDIT_ACTIONS,
] as const satisfies readonly Action[];

export const TRANSCRIPT_ACTIONS = [
  "turn.interrupt",
  "transcript.selectPrev",
  "transcript.selectNext",
  "transcript.toggleExpand",
  "transcript.top",
  "transcript.bottom",
  "transcript.pageUp",
  "transcript.pageDown",
  "transcript.scrollUp",
  "transcript.scrollDown",
  "input.focus",
  "transcript.focus",
] as const satisfies readonly Action[];

export const CONTEXT_ACTIONS = [
  "context.close",
  "context.nextPage",
  "context.prevPage",
  "context.nextSection",
  "context.prevSection",
  "context.scrollUp",
  "context.scrollDown",
  "transcript.focus",
  "context.focusPrompt",
] as const satisfies readonly Action[];

export const PERMISSION_ACTIONS = [
  "permission.allowOnce",
  "permission.allowSession",
  "permission.deny",
  "permission.scrollUp",
  "permission.scrollDown",
  "permission.pageUp",
  "permission.pageDown",
] as const satisfies readonly Action[];

export const SESSIONS_ACTIONS = [
  "sessions.prev",
  "sessions.next",
  "sessions.pageUp",
  "sessions.pageDown",
  "sessions.first",
  "sessions.last",
  "sessions.choose",
  "sessions.close",
] as const satisfies readonly Action[];

/** the rewind box: a picker (the session picker's keys) that also shows diffs */
export const REWIND_ACTIONS = ["rewind.diff", ...SESSIONS_ACTIONS] as const satisfies readonly Action[];

/**
 * Every place and the actions read there, in order. The key router (keyrouter.ts) reads keys
 * from these lists and the keymap check (keymap.ts) warns of a key bound to two actions of one
 * place, so the two cannot disagree about what "the same place" is.
 */
export const PLACES: Record<Place, PlaceSpec> = {
  prompt: { label: "the prompt", actions: PROMPT_ACTIONS, conditional: ["turn.interrupt", "queue.edit", "queue.remove"] },
  transcript: { label: "the transcript", actions: TRANSCRIPT_ACTIONS, conditional: ["turn.interrupt"] },
  context: { label: "the context pane", actions: CONTEXT_ACTIONS, conditional: [] },
  permission: { label: "the permission box", actions: PERMISSION_ACTIONS, conditional: [] },
  sessions: { label: "the session picker", actions: SESSIONS_ACTIONS, conditional: [] },
  rewind: { label: "the rewind box", actions: REWIND_ACTIONS, conditional: [] },
};

/** the actions a box answers with or closes on: typed-ahead keys never reach them */
export const DECIDING_ACTIONS: ReadonlySet<Action> = new Set<Action>([
  "permission.allowOnce",
  "permission.allowSession",
  "permission.deny",
  "sessions.choose",
  "sessions.close",
]);

/** every action read in a place, the global ones first */
export function placeActions(place: Place): readonly Action[] {
  const box = place === "permission" || place === "sessions" || place === "rewind";
  return [...(box ? BOX_GLOBAL_ACTIONS : GLOBAL_ACTIONS), ...PLACES[place].actions];
}

const NAMED = new Set([
  "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "insert", "delete",
  "backspace", "tab", "enter", "escape", "space", "clear",
  "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
  // the mouse wheel, reported unless the keymap turns the mouse off
  "wheelup", "wheeldown",
]);
// names blessed users write that mean the same key as ours
const ALIASES: Record<string, string> = {
  return: "enter",
  esc: "escape",
  del: "delete",
  pgup: "pageup",
  pgdn: "pagedown",
  "page-up": "pageup",
  "page-down": "pagedown",
};

/**
 * A key name in canonical form ("C-M-S-name", modifiers in that order), or undefined when it
 * is not a key name. Accepts blessed's spellings: "C-o", "M-enter", "S-tab", "return", "G".
 */
export function normalizeKey(raw: string): string | undefined {
  if (typeof raw !== "string" || !raw) return undefined;
  let rest = raw;
  let ctrl = false;
  let meta = false;
  let shift = false;
  for (;;) {
    const m = /^([CMSAcmsa])-(.+)$/.exec(rest);
    if (!m) break;
    const mod = m[1]!.toUpperCase();
    if (mod === "C") ctrl = true;
    else if (mod === "M" || mod === "A") meta = true;
    else shift = true;
    rest = m[2]!;
  }
  let name = rest;
  if (name.length === 1) {
    const code = name.charCodeAt(0);
    if (code <= 0x20 || code === 0x7f) return undefined;
    if (name >= "A" && name <= "Z") {
      shift = true;
      name = name.toLowerCase();
    }
  } else {
    name = ALIASES[name.toLowerCase()] ?? name.toLowerCase();
    // blessed calls the LF byte "linefeed"; it is Ctrl-J
    if (name === "linefeed") {
      name = "j";
      ctrl = true;
    } else if (!NAMED.has(name)) return undefined;
  }
  // Ctrl+letter is one byte in a terminal: C-i is Tab, C-m is Enter, C-[ is Escape, C-h is backspace
  if (ctrl && !meta && !shift) {
    if (name === "i") return "tab";
    if (name === "m") return "enter";
    if (name === "[") return "escape";
    if (name === "h") return "backspace";
  }
  return (ctrl ? "C-" : "") + (meta ? "M-" : "") + (shift ? "S-" : "") + name;
}

/** a fresh copy of the built-in bindings */
export function defaults(): Record<Action, string[]> {
  const out = {} as Record<Action, string[]>;
  for (const a of ACTIONS) out[a] = [...DEFAULT_BINDINGS[a]];
  return out;
}

export function isAction(x: string): x is Action {
  return (ACTIONS as readonly string[]).includes(x);
}

export function defaultKeymap(): Keymap {
  return { name: "default", bindings: defaults(), mouse: true };
}

/** a short label of an action's first key for hints: "C-o" → "^O", "escape" → "Esc" */
export function keyLabel(km: Keymap, action: Action): string {
  const k = km.bindings[action][0];
  return k ? prettyKey(k) : "(unbound)";
}

const PRETTY: Record<string, string> = {
  escape: "Esc",
  enter: "Enter",
  tab: "Tab",
  space: "Space",
  backspace: "Backspace",
  delete: "Del",
  insert: "Ins",
  home: "Home",
  end: "End",
  pageup: "PgUp",
  pagedown: "PgDn",
  up: "↑",
  down: "↓",
  left: "←",
  right: "→",
  wheelup: "Wheel-Up",
  wheeldown: "Wheel-Down",
};

/** "C-o" → "^O", "M-enter" → "Alt-Enter", "S-tab" → "Shift-Tab", "S-g" → "G", "pageup" → "PgUp" */
export function prettyKey(k: string): string {
  const m = /^((?:[CMS]-)*)(.+)$/.exec(k);
  if (!m) return k;
  const mods = m[1] ?? "";
  const name = m[2]!;
  const ctrl = mods.includes("C-");
  const meta = mods.includes("M-");
  const shift = mods.includes("S-");
  if (ctrl && !meta && !shift && name.length === 1) return `^${name.toUpperCase()}`;
  let base = PRETTY[name] ?? (/^f\d+$/.test(name) ? name.toUpperCase() : name);
  let shiftShown = shift;
  if (shift && name.length === 1 && name >= "a" && name <= "z") {
    base = name.toUpperCase();
    shiftShown = false;
  }
  return (ctrl ? "Ctrl-" : "") + (meta ? "Alt-" : "") + (shiftShown ? "Shift-" : "") + base;
}
