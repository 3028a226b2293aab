import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { ACTIONS, DEFAULT_BINDINGS, keymapConflicts, keymapsDir, loadKeymap, MAX_KEYMAP_BYTES, normalizeKey, prettyKey } from "../../src/ui/keymap.js";
import { tempDir } from "../helpers/tmp.js";

let dir: string;
beforeAll(async () => {
  dir = await tempDir("albedo-keymap-");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

describe("keymap files", () => {
  it("keymaps/default.json says exactly what the built-in defaults say", () => {
    const file = JSON.parse(fs.readFileSync(path.join(keymapsDir(), "default.json"), "utf8")) as Record<string, unknown>;
    delete file.$comment;
    expect(file.mouse).toBe("wheel");
    delete file.mouse;
    expect(file).toEqual(DEFAULT_BINDINGS);
    expect(Object.keys(DEFAULT_BINDINGS).sort()).toEqual([...ACTIONS].sort());
  });

  it.each(["default", "vim", "emacs"])("%s loads without warnings (no key bound twice in one place), binds every action, wheel on", (name) => {
    const { keymap, warnings } = loadKeymap(name);
    expect(warnings).toEqual([]);
    expect(keymap.name).toBe(name);
    expect(keymap.mouse).toBe(true);
    for (const a of ACTIONS) expect(keymap.bindings[a].length).toBeGreaterThan(0);
  });

  it("no letter acts in the context pane by default: the next prompt's first letter must not close or page it", () => {
    for (const a of ["context.close", "context.nextPage", "context.prevPage", "context.nextSection", "context.prevSection", "context.scrollUp", "context.scrollDown", "context.focusPrompt"] as const) {
      expect(DEFAULT_BINDINGS[a].filter((k) => /^(S-)?[a-z0-9]$/.test(k)), a).toEqual([]);
    }
    // and Enter, the end of every typed prompt, answers no question
    for (const a of ["permission.allowOnce", "permission.allowSession", "permission.deny"] as const) expect(DEFAULT_BINDINGS[a]).not.toContain("enter");
  });

  it("vim moves through the context pane with hjkl", () => {
    const { keymap } = loadKeymap("vim");
    expect(keymap.bindings["context.nextPage"]).toContain("l");
    expect(keymap.bindings["context.prevSection"]).toContain("k");
  });
});

describe("bad keymaps fall back, with warnings that name the file and the entry", () => {
  it("a file that is not JSON", () => {
    const p = write("broken.json", "{ not json");
    const { keymap, warnings } = loadKeymap(p);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(p);
    expect(warnings[0]).toContain("not valid JSON");
    expect(keymap.bindings).toEqual(DEFAULT_BINDINGS);
  });

  it("a missing file or keymap name", () => {
    const { warnings } = loadKeymap("nosuchmap");
    expect(warnings[0]).toContain("nosuchmap.json");
    expect(warnings[0]).toContain("no such file");
  });

  it("an unknown action is ignored, the rest applies", () => {
    const p = write("unknown-action.json", JSON.stringify({ "context.toggel": "C-x", "context.toggle": "C-x" }));
    const { keymap, warnings } = loadKeymap(p);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(p);
    expect(warnings[0]).toContain('"context.toggel"');
    expect(warnings[0]).toContain("context.toggle");
    expect(keymap.bindings["context.toggle"]).toEqual(["C-x"]);
  });

  it("an unknown or malformed key keeps that action's default", () => {
    const p = write("bad-key.json", JSON.stringify({ "context.toggle": ["Ctrl+O"], "app.quit": 42, "input.submit": "enter" }));
    const { keymap, warnings } = loadKeymap(p);
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain('"Ctrl+O" is not a key name');
    expect(warnings.join("\n")).toContain('"app.quit"');
    expect(warnings.every((w) => w.includes(p))).toBe(true);
    expect(keymap.bindings["context.toggle"]).toEqual(DEFAULT_BINDINGS["context.toggle"]);
    expect(keymap.bindings["app.quit"]).toEqual(DEFAULT_BINDINGS["app.quit"]);
  });

  it("config overrides apply last and are checked the same way", () => {
    const { keymap, warnings } = loadKeymap("default", { "context.toggle": "C-x", "transcript.top": "hyper-a" });
    expect(keymap.bindings["context.toggle"]).toEqual(["C-x"]);
    expect(keymap.bindings["transcript.top"]).toEqual(DEFAULT_BINDINGS["transcript.top"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^config keys: "transcript.top"/);
  });

  it("a JSON array is not a keymap", () => {
    const p = write("array.json", "[1,2]");
    const { keymap, warnings } = loadKeymap(p);
    expect(warnings[0]).toContain("expected an object");
    expect(keymap.bindings).toEqual(DEFAULT_BINDINGS);
  });
});

describe("a key bound to two actions in one place is named at start, with its file", () => {
  it("two actions of the transcript on one key, from one file", () => {
    const p = write("twice.json", JSON.stringify({ "transcript.top": ["k", "home"] }));
    const { keymap, warnings } = loadKeymap(p);
    expect(warnings).toEqual([`keymap ${p}: "k" is bound to both transcript.selectPrev (default) and transcript.top (keymap ${p}) in the transcript; only transcript.selectPrev acts on it there`]);
    expect(keymap.bindings["transcript.top"]).toEqual(["k", "home"]);
  });

  it("a key in two places is one warning naming both; a global key shadows a place's", () => {
    const p = write("global.json", JSON.stringify({ "input.historyPrev": ["up", "C-o"], "context.nextSection": ["C-o", "down"] }));
    const { warnings } = loadKeymap(p);
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain(`"C-o" is bound to both context.toggle (default) and input.historyPrev (keymap ${p}) in the prompt; only context.toggle acts on it there`);
    expect(warnings.join("\n")).toContain(`"C-o" is bound to both context.toggle (default) and context.nextSection (keymap ${p}) in the context pane`);
  });

  it("the config's keys are named as such; a pair from one source names that source alone", () => {
    const { warnings } = loadKeymap("default", { "sessions.first": ["home", "j"], "sessions.next": ["j"] });
    expect(warnings).toEqual(['config keys: "j" is bound to both sessions.next and sessions.first in the session picker and the rewind box; only sessions.next acts on it there']);
  });

  it("keys shared with an action that acts only sometimes (Esc interrupts only while a turn runs) are not a conflict", () => {
    expect(keymapConflicts({ ...DEFAULT_BINDINGS })).toEqual([]);
    const { warnings } = loadKeymap("default", { "turn.interrupt": ["escape", "q"] });
    expect(warnings).toEqual([]);
  });
});

describe("the mouse wheel is on unless turned off", () => {
  it('"mouse": "off" in a keymap file or the config turns it off, "wheel" on again; anything else is named', () => {
    const p = write("mouse.json", JSON.stringify({ mouse: "off" }));
    expect(loadKeymap(p)).toMatchObject({ keymap: { mouse: false }, warnings: [] });
    expect(loadKeymap("vim", { mouse: "off" })).toMatchObject({ keymap: { mouse: false }, warnings: [] });
    expect(loadKeymap(p, { mouse: "wheel" }).keymap.mouse).toBe(true);
    const bad = loadKeymap("default", { mouse: "yes" });
    expect(bad.keymap.mouse).toBe(true);
    expect(bad.warnings).toEqual(['config keys: "mouse" must be "wheel" (the terminal reports the wheel; Shift-drag selects text) or "off"; keeping wheel']);
  });

  it("the wheel keys have names", () => {
    expect(normalizeKey("wheelup")).toBe("wheelup");
    expect(normalizeKey("S-wheeldown")).toBe("S-wheeldown");
    expect(prettyKey("wheelup")).toBe("Wheel-Up");
  });
});

describe("key names", () => {
  it("accepts blessed spellings and normalises them", () => {
    expect(normalizeKey("C-o")).toBe("C-o");
    expect(normalizeKey("return")).toBe("enter");
    expect(normalizeKey("M-return")).toBe("M-enter");
    expect(normalizeKey("G")).toBe("S-g");
    expect(normalizeKey("linefeed")).toBe("C-j");
    expect(normalizeKey("C-i")).toBe("tab");
    expect(normalizeKey("S-C-up")).toBe("C-S-up");
    expect(normalizeKey("pgup")).toBe("pageup");
  });

  it("rejects what is not a key", () => {
    for (const bad of ["", "Ctrl+O", "C-", "hyper-a", "foo", "C-foo", " "]) expect(normalizeKey(bad)).toBeUndefined();
  });

  it("labels keys for people", () => {
    expect(prettyKey("C-o")).toBe("^O");
    expect(prettyKey("M-enter")).toBe("Alt-Enter");
    expect(prettyKey("S-tab")).toBe("Shift-Tab");
    expect(prettyKey("S-g")).toBe("G");
    expect(prettyKey("pagedown")).toBe("PgDn");
  });
});

describe("keymap files that are not keymaps", () => {
  it("--keymap /dev/zero, a FIFO, a folder: a warning naming the file and why, the default keys, no hang", () => {
    const fifo = path.join(dir, "keys.fifo");
    execFileSync("mkfifo", [fifo]);
    const folder = path.join(dir, "keys-folder.json");
    fs.mkdirSync(folder);
    for (const [file, kind] of [
      ["/dev/zero", "a character device"],
      [fifo, "a FIFO"],
      [folder, "a folder"],
    ] as const) {
      const { keymap, warnings } = loadKeymap(file);
      expect(warnings).toEqual([`keymap ${file} is not a regular file (${kind}); refusing to read it; using the default keys`]);
      expect(keymap.bindings).toEqual(DEFAULT_BINDINGS);
    }
  }, 30_000);

  it("a keymap over 1 MB is refused by name; a keymap with a UTF-8 byte-order mark loads", () => {
    const big = write("big.json", JSON.stringify({ "$comment": "x".repeat(MAX_KEYMAP_BYTES + 10) }));
    const size = fs.statSync(big).size;
    expect(loadKeymap(big).warnings).toEqual([`keymap ${big} is ${size} bytes, over the limit of ${MAX_KEYMAP_BYTES} bytes; using the default keys`]);
    const bom = write("bom.json", "\uFEFF" + JSON.stringify({ "context.toggle": "C-y" }));
    const { keymap, warnings } = loadKeymap(bom);
    expect(warnings).toEqual([]);
    expect(keymap.bindings["context.toggle"]).toEqual(["C-y"]);
  });
});
