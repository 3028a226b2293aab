// The actions and their keys: the built-in bindings, key names in canonical form, and the
// labels hints show. Pure and part of the first frame (the default keys and their labels);
// reading keymap files and the config's overrides is keymap.ts, loaded with the session.

export const ACTIONS = [
  "input.submit",
  "input.newline",
  "input.historyPrev",
  "input.historyNext",
  "input.complete",
  "input.focus",
  "turn.interrupt",
  "app.quit",
  "app.quitIfEmpty",
  "app.redraw",
  "context.toggle",
  "context.close",
  "context.nextPage",
  "context.prevPage",
  "context.nextSection",
  "context.prevSection",
  "context.scrollUp",
  "context.scrollDown",
  "transcript.focus",
  "transcript.pageUp",
  "transcript.pageDown",
  "transcript.top",
  "transcript.bottom",
  "transcript.selectPrev",
  "transcript.selectNext",
  "transcript.toggleExpand",
  "permission.allowOnce",
  "permission.allowSession",
  "permission.deny",
] as const;

export type Action = (typeof ACTIONS)[number];

export interface Keymap {
  /** "default", "vim", "emacs", or the file's path */
  name: string;
  bindings: Record<Action, string[]>;
}

/** what each action does, for /help */
export const ACTION_HELP: Record<Action, string> = {
  "input.submit": "send the prompt",
  "input.newline": "new line in the prompt",
  "input.historyPrev": "earlier prompt (on the first line)",
  "input.historyNext": "later prompt (on the last line)",
  "input.complete": "complete a slash command",
  "input.focus": "back to the prompt",
  "turn.interrupt": "interrupt the running turn",
  "app.quit": "quit (press twice)",
  "app.quitIfEmpty": "quit when the prompt is empty",
  "app.redraw": "redraw the screen",
  "context.toggle": "open/close the context pane",
  "context.close": "close the context pane",
  "context.nextPage": "context: next page",
  "context.prevPage": "context: previous page",
  "context.nextSection": "context: next section",
  "context.prevSection": "context: previous section",
  "context.scrollUp": "context: scroll the page up",
  "context.scrollDown": "context: scroll the page down",
  "transcript.focus": "move to the transcript (select tool calls)",
  "transcript.pageUp": "scroll the transcript up",
  "transcript.pageDown": "scroll the transcript down",
  "transcript.top": "transcript: top",
  "transcript.bottom": "transcript: bottom (follow)",
  "transcript.selectPrev": "transcript: previous tool call / thinking",
  "transcript.selectNext": "transcript: next tool call / thinking",
  "transcript.toggleExpand": "transcript: expand/collapse the selected item",
  "permission.allowOnce": "permission: allow once",
  "permission.allowSession": "permission: allow for this session",
  "permission.deny": "permission: deny",
};

/** the built-in bindings; keymaps/default.json says the same (a unit test keeps them equal) */
export const DEFAULT_BINDINGS: Record<Action, string[]> = {
  "input.submit": ["enter"],
  "input.newline": ["M-enter", "C-j"],
  "input.historyPrev": ["up"],
  "input.historyNext": ["down"],
  "input.complete": ["tab"],
  "input.focus": ["escape", "i"],
  "turn.interrupt": ["escape"],
  "app.quit": ["C-c"],
  "app.quitIfEmpty": ["C-d"],
  "app.redraw": ["C-l"],
  "context.toggle": ["C-o"],
  "context.close": ["escape", "q"],
  "context.nextPage": ["right"],
  "context.prevPage": ["left"],
  "context.nextSection": ["down"],
  "context.prevSection": ["up"],
  "context.scrollUp": ["pageup"],
  "context.scrollDown": ["pagedown"],
  "transcript.focus": ["S-tab", "M-up"],
  "transcript.pageUp": ["pageup"],
  "transcript.pageDown": ["pagedown"],
  "transcript.top": ["home", "g"],
  "transcript.bottom": ["end", "S-g"],
  "transcript.selectPrev": ["up", "k"],
  "transcript.selectNext": ["down", "j"],
  "transcript.toggleExpand": ["enter", "tab", "space"],
  "permission.allowOnce": ["y", "enter"],
  "permission.allowSession": ["a"],
  "permission.deny": ["n", "escape"],
};

const NAMED = new Set([
  "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "insert", "delete",
  "backspace", "tab", "enter", "escape", "space", "clear",
  "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
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
  return { name: "default", bindings: defaults() };
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
