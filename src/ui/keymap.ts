// Key bindings by action name, from keymaps/*.json (default, vim, emacs, or a path) plus
// overrides from the config. Loading never throws: a bad file or entry becomes a warning that
// names the file and the entry, and that action keeps its default keys.
import { messageOf } from "../record/errors.js";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { decodeUtf8, readStartFileSync, StartFileError } from "../config/files.js";
import { ACTIONS, DEFAULT_BINDINGS, defaults, isAction, normalizeKey, type Action, type Keymap } from "./bindings.js";

export { ACTION_HELP, ACTIONS, DEFAULT_BINDINGS, defaultKeymap, keyLabel, normalizeKey, prettyKey, type Action, type Keymap } from "./bindings.js";

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

/** applies one source's entries over `into`, collecting warnings that name the source */
function apply(into: Record<Action, string[]>, entries: Record<string, unknown>, source: string, warnings: string[]): void {
  for (const [action, value] of Object.entries(entries)) {
    // "$comment", "//" and "name" are documentation, not bindings
    if (action.startsWith("$") || action.startsWith("//") || action === "name" || action === "description") continue;
    if (!isAction(action)) {
      const group = action.split(".")[0];
      const near = ACTIONS.filter((a) => a.startsWith(`${group}.`));
      const hint = near.length ? `; ${group}.* actions are ${near.join(", ")}` : "; the actions are listed in keymaps/default.json";
      warnings.push(`${source}: unknown action "${action}" (ignored)${hint}`);
      continue;
    }
    if (!isKeyList(value)) {
      warnings.push(`${source}: "${action}" must be a key name or a list of key names; keeping the default (${DEFAULT_BINDINGS[action].join(", ")})`);
      into[action] = [...DEFAULT_BINDINGS[action]];
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
      into[action] = [...DEFAULT_BINDINGS[action]];
      continue;
    }
    into[action] = keys;
  }
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
  } catch (e) {
    warnings.push(`keymap ${label} (${file}): not valid JSON (${messageOf(e)}); using the default keys`);
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
  const bindings = defaults();
  const name = nameOrPath || "default";
  const isPath = name.includes("/") || name.includes("\\") || name.endsWith(".json");
  const file = isPath ? path.resolve(name) : path.join(keymapsDir(), `${name}.json`);
  const label = isPath ? file : `${name}.json`;
  if (!isPath && !/^[a-z0-9_-]+$/i.test(name)) {
    warnings.push(`keymap "${name}": not a keymap name or a path to a JSON file; using the default keys`);
  } else {
    const entries = readFile(file, label, warnings);
    if (entries) apply(bindings, entries, `keymap ${label}`, warnings);
  }
  if (overrides && typeof overrides === "object") apply(bindings, overrides as Record<string, unknown>, "config keys", warnings);
  return { keymap: { name: isPath ? file : name, bindings }, warnings };
}
