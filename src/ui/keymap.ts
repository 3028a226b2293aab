// Key bindings by action name, from keymaps/*.json (default, vim, emacs, or a path) plus
// overrides from the config. Loading never throws: a bad file or entry becomes a warning that
// names the file and the entry, and that action keeps its default keys. A key bound to two
// actions read in the same place (bindings.ts, PLACES) is a warning too, naming the file(s)
// that bound it and which of the two acts.
import { messageOf } from "../record/errors.js";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { decodeUtf8, jsonSyntaxProblem, readStartFileSync, StartFileError } from "../config/files.js";
import { ACTIONS, DEFAULT_BINDINGS, defaults, isAction, normalizeKey, PLACES, placeActions, type Action, type Keymap, type Place } from "./bindings.js";

export { ACTION_HELP, ACTIONS, DEFAULT_BINDINGS, defaultKeymap, keyLabel, normalizeKey, PLACES, prettyKey, type Action, type Keymap } from "./bindings.js";

/** A keymap is a few kB; a bigger file is not one. */
export const MAX_KEYMAP_BYTES = 1024 * 1024;

/** the keymaps folder of the package: src/ui → ../../keymaps, dist/ui → ../../keymaps */
export function keymapsDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../keymaps");
}

// A few typeofs rather than a zod schema: importing zod takes longer (~35 ms) than the
// screen's start may, and this runs while the session loads behind the first frame.
function isKeyList(v: unknown): v is string | string[] {
  return typeof v === "string" || (Array.isArray(v) && v.every((k) => typeof k === "string"));
}

/** what is being built: the bindings, which source set each action's keys, the mouse */
interface Building {
  bindings: Record<Action, string[]>;
  /** the source that last set each action's keys; absent: the built-in default */
  from: Partial<Record<Action, string>>;
  mouse: boolean;
}

/** applies one source's entries over `into`, collecting warnings that name the source */
function apply(into: Building, entries: Record<string, unknown>, source: string, warnings: string[]): void {
  for (const [action, value] of Object.entries(entries)) {
    // "$comment", "//" and "name" are documentation, not bindings
    if (action.startsWith("$") || action.startsWith("//") || action === "name" || action === "description") continue;
    if (action === "mouse") {
      if (value === "wheel" || value === "off") into.mouse = value === "wheel";
      else warnings.push(`${source}: "mouse" must be "wheel" (the terminal reports the wheel; Shift-drag selects text) or "off"; keeping ${into.mouse ? "wheel" : "off"}`);
      continue;
    }
    if (!isAction(action)) {
      const group = action.split(".")[0];
      const near = ACTIONS.filter((a) => a.startsWith(`${group}.`));
      const hint = near.length ? `; ${group}.* actions are ${near.join(", ")}` : "; the actions are listed in keymaps/default.json";
      warnings.push(`${source}: unknown action "${action}" (ignored)${hint}`);
      continue;
    }
    if (!isKeyList(value)) {
      warnings.push(`${source}: "${action}" must be a key name or a list of key names; keeping the default (${DEFAULT_BINDINGS[action].join(", ")})`);
      into.bindings[action] = [...DEFAULT_BINDINGS[action]];
      delete into.from[action];
      continue;
    }
    const list = typeof value === "string" ? [value] : value;
    const keys: string[] = [];
    const bad: string[] = [];
    for (const k of list) {
      const n = normalizeKey(k);
      if (n) keys.push(n);
      else bad.push(k);
    }
    if (bad.length || keys.length === 0) {
      const what = bad.length ? `${bad.map((b) => JSON.stringify(b)).join(", ")} ${bad.length === 1 ? "is not a key name" : "are not key names"}` : "no keys given";
      warnings.push(`${source}: "${action}": ${what} (write e.g. "C-o", "M-enter", "escape", "pageup"); keeping the default (${DEFAULT_BINDINGS[action].join(", ")})`);
      into.bindings[action] = [...DEFAULT_BINDINGS[action]];
      delete into.from[action];
      continue;
    }
    into.bindings[action] = keys;
    into.from[action] = source;
  }
}

/**
 * Keys bound to two actions read in the same place, where the first in the router's order
 * takes the key and the other never sees it. Actions that act only sometimes (Esc interrupts
 * only while a turn runs) share keys by design and are left out. One warning per key and
 * pair, naming the places, the sources that bound the two, and which one acts.
 */
export function keymapConflicts(bindings: Record<Action, string[]>, from: Partial<Record<Action, string>> = {}): string[] {
  const found = new Map<string, { key: string; wins: Action; loses: Action; places: Place[] }>();
  for (const place of Object.keys(PLACES) as Place[]) {
    const conditional = new Set(PLACES[place].conditional);
    const owner = new Map<string, Action>();
    for (const action of placeActions(place)) {
      if (conditional.has(action)) continue;
      for (const key of new Set(bindings[action])) {
        const first = owner.get(key);
        if (!first) {
          owner.set(key, action);
          continue;
        }
        if (first === action) continue;
        const id = `${key}\0${first}\0${action}`;
        const f = found.get(id);
        if (f) f.places.push(place);
        else found.set(id, { key, wins: first, loses: action, places: [place] });
      }
    }
  }
  const out: string[] = [];
  for (const c of found.values()) {
    const a = from[c.wins] ?? "default";
    const b = from[c.loses] ?? "default";
    // the file (or config) that made the pair; the built-in defaults are named per action only
    const named = [...new Set([b, a].filter((x) => x !== "default"))];
    const prefix = named.length ? named.join(" and ") : "the default keys";
    const where = c.places.map((p) => PLACES[p].label).join(" and ");
    const by = (x: Action, src: string): string => (a === b ? x : `${x} (${src})`);
    out.push(`${prefix}: "${c.key}" is bound to both ${by(c.wins, a)} and ${by(c.loses, b)} in ${where}; only ${c.wins} acts on it there`);
  }
  return out;
}

function readFile(file: string, label: string, warnings: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    // a FIFO, a device (/dev/zero never ends) or a huge file is refused by name, not read
    text = decodeUtf8(readStartFileSync(file, { what: "keymap", maxBytes: MAX_KEYMAP_BYTES }), `keymap ${file}`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | StartFileError).code;
    if (code === "ENOENT") warnings.push(`keymap ${label}: cannot read ${file} (no such file); using the default keys`);
    else warnings.push(`${messageOf(e)}; using the default keys`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // in words of its own: JSON.parse's message quotes the file's bytes
    warnings.push(`keymap ${label} (${file}): ${jsonSyntaxProblem(text)}; using the default keys`);
    return undefined;
  }
  // an object: its entries are checked one by one in apply(), so a bad one costs only itself
  if (json && typeof json === "object" && !Array.isArray(json)) return json as Record<string, unknown>;
  warnings.push(`keymap ${label} (${file}): expected an object mapping action names to keys; using the default keys`);
  return undefined;
}

/**
 * Loads "default", "vim", "emacs" (from the package's keymaps folder) or a JSON file path, then
 * the config's overrides. Every action missing from the file keeps its default keys.
 */
export function loadKeymap(nameOrPath: string, overrides?: Record<string, string | string[]>): { keymap: Keymap; warnings: string[] } {
  const warnings: string[] = [];
  const into: Building = { bindings: defaults(), from: {}, mouse: true };
  const name = nameOrPath || "default";
  const isPath = name.includes("/") || name.includes("\\") || name.endsWith(".json");
  const file = isPath ? path.resolve(name) : path.join(keymapsDir(), `${name}.json`);
  const label = isPath ? file : `${name}.json`;
  if (!isPath && !/^[a-z0-9_-]+$/i.test(name)) {
    warnings.push(`keymap "${name}": not a keymap name or a path to a JSON file; using the default keys`);
  } else {
    const entries = readFile(file, label, warnings);
    if (entries) apply(into, entries, `keymap ${label}`, warnings);
  }
  if (overrides && typeof overrides === "object") apply(into, overrides as Record<string, unknown>, "config keys", warnings);
  warnings.push(...keymapConflicts(into.bindings, into.from));
  return { keymap: { name: isPath ? file : name, bindings: into.bindings, mouse: into.mouse }, warnings };
}
