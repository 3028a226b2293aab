// Terminal input → key events and pastes. We read stdin ourselves instead of using blessed's
// key parser because that one emits one event per character (a 2 MB paste becomes two
// million events), drops Alt-Enter, and knows nothing of bracketed paste. Key names follow
// blessed's convention ("C-o", "M-enter", "S-tab", "pageup") so keymap files read the same.
// The mouse wheel is a key too ("wheelup", "wheeldown", with the cell it was over), so a
// keymap binds it like any other; clicks and every other mouse report are read and dropped.

export interface KeyEvent {
  type: "key";
  /** "a", "enter", "up", "f5" … */
  name: string;
  /** with modifiers, in the order C- M- S-: "C-o", "M-enter", "S-tab", "S-a" */
  full: string;
  /** the printable text the key produces, when it produces one */
  ch?: string;
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
  /** a wheel key: the cell under the pointer, from 0 */
  at?: { x: number; y: number };
}

interface PasteEvent {
  type: "paste";
  text: string;
}

export type InputEvent = KeyEvent | PasteEvent;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** an unbracketed chunk this long with no escape in it is a paste, not typing */
const RAW_PASTE_MIN = 256;

function key(name: string, mods: { ctrl?: boolean; meta?: boolean; shift?: boolean } = {}, ch?: string): KeyEvent {
  const ctrl = !!mods.ctrl;
  const meta = !!mods.meta;
  const shift = !!mods.shift;
  const full = (ctrl ? "C-" : "") + (meta ? "M-" : "") + (shift ? "S-" : "") + name;
  const ev: KeyEvent = { type: "key", name, full, ctrl, meta, shift };
  if (ch !== undefined) ev.ch = ch;
  return ev;
}

/** xterm modifier parameter: 1 + shift(1) + alt(2) + ctrl(4) */
function mods(param: number | undefined): { ctrl: boolean; meta: boolean; shift: boolean } {
  const m = Math.max(0, (param ?? 1) - 1);
  return { shift: !!(m & 1), meta: !!(m & 2), ctrl: !!(m & 4) };
}

const TILDE: Record<number, string> = {
  1: "home",
  2: "insert",
  3: "delete",
  4: "end",
  5: "pageup",
  6: "pagedown",
  7: "home",
  8: "end",
  11: "f1",
  12: "f2",
  13: "f3",
  14: "f4",
  15: "f5",
  17: "f6",
  18: "f7",
  19: "f8",
  20: "f9",
  21: "f10",
  23: "f11",
  24: "f12",
};

const LETTER_KEYS: Record<string, string> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  E: "clear",
  P: "f1",
  Q: "f2",
  R: "f3",
  S: "f4",
};

/**
 * An Alt-character (ESC then one character, read as one key) as the two keys it may have been
 * typed as: Esc, then the character. Undefined for a key that is not Alt with one character.
 */
export function splitAlt(k: KeyEvent): [KeyEvent, KeyEvent] | undefined {
  if (!k.meta || k.ctrl || k.at) return undefined;
  const c = k.name === "space" ? " " : k.name.length === 1 ? (k.shift ? k.name.toUpperCase() : k.name) : undefined;
  if (c === undefined) return undefined;
  const plain = charKey(c);
  return plain ? [key("escape"), plain] : undefined;
}

/** one character (no escape prefix) as a key */
function charKey(c: string, meta = false): KeyEvent | undefined {
  const code = c.codePointAt(0)!;
  if (c === "\r") return key("enter", { meta });
  // LF is Ctrl-J (Enter sends CR in raw mode), so "C-j" binds it like any other control key
  if (c === "\n") return key("j", { ctrl: true, meta });
  if (c === "\t") return key("tab", { meta });
  if (c === "\x7f" || c === "\b") return key("backspace", { meta });
  if (c === " ") return key("space", { meta }, meta ? undefined : " ");
  if (code === 0) return key("space", { ctrl: true, meta });
  if (code >= 1 && code <= 26) return key(String.fromCharCode(code + 96), { ctrl: true, meta });
  if (code === 0x1c) return key("\\", { ctrl: true, meta });
  if (code === 0x1d) return key("]", { ctrl: true, meta });
  if (code === 0x1e) return key("^", { ctrl: true, meta });
  if (code === 0x1f) return key("_", { ctrl: true, meta });
  if (code < 0x20 || (code >= 0x80 && code < 0xa0)) return undefined;
  if (c >= "A" && c <= "Z") return key(c.toLowerCase(), { shift: true, meta }, meta ? undefined : c);
  return key(c, { meta }, meta ? undefined : c);
}

/** CSI parameters + final byte → a key (undefined for sequences we ignore) */
function csiKey(params: string, final: string): KeyEvent | undefined {
  const nums = params.split(";").map((p) => (p === "" ? undefined : Number(p.split(":")[0])));
  if (final === "~") {
    const n = nums[0] ?? 0;
    // xterm modifyOtherKeys: CSI 27 ; mod ; code ~
    if (n === 27 && nums[2] !== undefined) return codeKey(nums[2], nums[1]);
    const name = TILDE[n];
    return name ? key(name, mods(nums[1])) : undefined;
  }
  if (final === "u" && nums[0] !== undefined) return codeKey(nums[0], nums[1]); // CSI u (kitty, foot)
  if (final === "Z") return key("tab", { shift: true });
  const name = LETTER_KEYS[final];
  if (name) return key(name, mods(nums[1]));
  return undefined;
}

/**
 * A mouse report's button byte (SGR's first number, or X10's byte minus 32) at 1-based x, y:
 * the wheel as a key, anything else (clicks, releases, motion) as nothing.
 */
function mouseKey(cb: number, x: number, y: number): KeyEvent | undefined {
  // bit 6: a wheel "button"; bit 7: buttons 8-11 (extra buttons, not the wheel)
  if ((cb & 64) === 0 || (cb & 128) !== 0) return undefined;
  const button = cb & 3;
  if (button > 1) return undefined; // wheel left/right
  const k = key(button === 0 ? "wheelup" : "wheeldown", { shift: !!(cb & 4), meta: !!(cb & 8), ctrl: !!(cb & 16) });
  k.at = { x: Math.max(0, x - 1), y: Math.max(0, y - 1) };
  return k;
}

function codeKey(code: number, mod: number | undefined): KeyEvent | undefined {
  const m = mods(mod);
  const base = code === 13 ? "enter" : code === 9 ? "tab" : code === 27 ? "escape" : code === 127 ? "backspace" : code === 32 ? "space" : undefined;
  if (base) return key(base, m);
  if (code < 32 || code > 0x10ffff) return undefined;
  const c = String.fromCodePoint(code);
  if (m.ctrl || m.meta) return key(c.toLowerCase(), { ...m, shift: m.shift || (c >= "A" && c <= "Z") });
  return charKey(m.shift && c >= "a" && c <= "z" ? c.toUpperCase() : c);
}

/**
 * A stateful parser: feed it chunks as they arrive. An escape sequence cut at a chunk end is
 * held until the next chunk, or until `flush()` (call it after a short quiet time), which turns
 * a lone ESC into the Escape key.
 */
export class KeyParser {
  private pending = "";
  private paste: string[] | undefined;

  /** true while an incomplete sequence waits for more input (the caller arms a flush timer) */
  hasPending(): boolean {
    return this.pending.length > 0 && this.paste === undefined;
  }

  /**
   * How long to wait for the rest before flushing: a lone ESC is most likely the Escape key,
   * so briefly; a started sequence ("ESC [ 2 0") is a key or a paste marker cut by a busy
   * system, which a person cannot type that fast, so longer.
   */
  pendingWaitMs(): number {
    return this.pending === "\x1b" ? 30 : 400;
  }

  feed(chunk: string): InputEvent[] {
    const out: InputEvent[] = [];
    let s = this.pending + chunk;
    this.pending = "";
    while (s.length) {
      if (this.paste) {
        const end = s.indexOf(PASTE_END);
        if (end < 0) {
          // keep a possible partial end marker for the next chunk
          const keep = partialSuffix(s, PASTE_END);
          this.paste.push(s.slice(0, s.length - keep));
          this.pending = s.slice(s.length - keep);
          return out;
        }
        this.paste.push(s.slice(0, end));
        out.push({ type: "paste", text: this.paste.join("") });
        this.paste = undefined;
        s = s.slice(end + PASTE_END.length);
        continue;
      }
      const esc = s.indexOf("\x1b");
      if (esc !== 0) {
        const plain = esc < 0 ? s : s.slice(0, esc);
        s = esc < 0 ? "" : s.slice(esc);
        if (plain.length >= RAW_PASTE_MIN) out.push({ type: "paste", text: plain });
        else for (const c of plain) pushKey(out, charKey(c));
        continue;
      }
      if (s.startsWith(PASTE_START)) {
        this.paste = [];
        s = s.slice(PASTE_START.length);
        continue;
      }
      const r = parseEscape(s);
      if (r === "incomplete") {
        this.pending = s;
        return out;
      }
      pushKey(out, r.key);
      s = s.slice(r.length);
    }
    return out;
  }

  /** after a quiet moment: whatever is held is complete as it is (a lone ESC is Escape) */
  flush(): InputEvent[] {
    if (this.paste) return [];
    const s = this.pending;
    this.pending = "";
    if (!s) return [];
    if (s === "\x1b") return [key("escape")];
    if (s === "\x1b\x1b") return [key("escape", { meta: true })];
    // an unfinished sequence: Escape, then the rest as typed keys
    const out: InputEvent[] = [key("escape")];
    for (const c of s.slice(1)) pushKey(out, charKey(c));
    return out;
  }
}

function pushKey(out: InputEvent[], k: KeyEvent | undefined): void {
  if (k) out.push(k);
}

function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) if (marker.startsWith(s.slice(s.length - n))) return n;
  return 0;
}

/** s starts with ESC */
function parseEscape(s: string): { key: KeyEvent | undefined; length: number } | "incomplete" {
  if (s.length === 1) return "incomplete";
  const c = s[1]!;
  if (c === "[") {
    // CSI: parameters 0x30–0x3f, intermediates 0x20–0x2f, final 0x40–0x7e
    let i = 2;
    // old-style (X10) mouse reports carry three raw bytes after "M", each value + 32
    if (s[2] === "M") return s.length < 6 ? "incomplete" : { key: mouseKey(s.charCodeAt(3) - 32, s.charCodeAt(4) - 32, s.charCodeAt(5) - 32), length: 6 };
    while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x3f) i++;
    while (i < s.length && s.charCodeAt(i) >= 0x20 && s.charCodeAt(i) <= 0x2f) i++;
    if (i >= s.length) return s.length > 32 ? { key: undefined, length: s.length } : "incomplete";
    const final = s[i]!;
    const fc = final.charCodeAt(0);
    if (fc < 0x40 || fc > 0x7e) return { key: undefined, length: i }; // malformed: drop it
    const params = s.slice(2, i);
    // SGR mouse report (mode 1006): ESC [ < button ; x ; y M (press) or m (release)
    if (params.startsWith("<")) {
      const [cb, x, y] = params.slice(1).split(";").map(Number);
      const k = final === "M" && Number.isFinite(cb) && Number.isFinite(x) && Number.isFinite(y) ? mouseKey(cb!, x!, y!) : undefined;
      return { key: k, length: i + 1 };
    }
    // focus in/out (mode 1004): not keys a person typed, but read as "focusin"/"focusout",
    // which no keymap binds (notify.ts hears them)
    if (params === "" && (final === "I" || final === "O")) return { key: key(final === "I" ? "focusin" : "focusout"), length: i + 1 };
    // cursor position reports and the rest: not keys
    if (params.startsWith("?") || final === "I" || final === "O" || final === "R" || final === "M" || final === "m") {
      return { key: undefined, length: i + 1 };
    }
    return { key: csiKey(params, final), length: i + 1 };
  }
  if (c === "O") {
    if (s.length < 3) return "incomplete";
    const final = s[2]!;
    const name = LETTER_KEYS[final];
    return { key: name ? key(name) : undefined, length: 3 };
  }
  if (c === "\x1b") {
    // ESC ESC [ A (some terminals' Alt+arrow) or a double Escape
    if (s.length === 2) return "incomplete";
    if (s[2] === "[" || s[2] === "O") {
      const inner = parseEscape(s.slice(1));
      if (inner === "incomplete") return inner;
      const k = inner.key;
      return { key: k ? key(k.name, { ctrl: k.ctrl, meta: true, shift: k.shift }) : undefined, length: inner.length + 1 };
    }
    return { key: key("escape", { meta: true }), length: 2 };
  }
  if (c === "]" || c === "P" || c === "_" || c === "^" || c === "X") {
    // string sequences (OSC replies and the like): skip to BEL or ST
    const bel = s.indexOf("\x07", 2);
    const st = s.indexOf("\x1b\\", 2);
    const ends = [bel >= 0 ? bel + 1 : -1, st >= 0 ? st + 2 : -1].filter((x) => x > 0);
    if (ends.length === 0) return s.length > 4096 ? { key: undefined, length: s.length } : "incomplete";
    return { key: undefined, length: Math.min(...ends) };
  }
  // Alt + one character (Alt-Enter is ESC CR)
  const cp = s.codePointAt(1)!;
  const ch = String.fromCodePoint(cp);
  return { key: charKey(ch, true), length: 1 + ch.length };
}
