// The /model list: which rows it has and in what order, how it is drawn,
// and which keys choose from it (a number or ↑/↓ + Enter, only once it is ready; before that
// every key is typed ahead into the prompt).
import { describe, expect, it } from "vitest";
import { buildModelPicker, modelsBox, NUMBERED } from "../../src/ui/model-list.js";
import type { ModelChoices } from "../../src/provider/models.js";
import { catalogModels } from "../../src/provider/catalog.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { KeyParser } from "../../src/ui/keys.js";
import { KeyRouter, type Intent, type RouteView } from "../../src/ui/keyrouter.js";
import { KEYS } from "../helpers/pty.js";

const choices = (over: Partial<ModelChoices> = {}): ModelChoices => ({
  current: { provider: "openai", model: "llama3.2:3b" },
  providers: [
    { provider: "openai", baseUrl: "http://127.0.0.1:11434/v1", catalog: ["gpt-5", "gpt-4o"], served: [{ id: "llama3.2:3b" }, { id: "qwen2.5-coder:7b" }, { id: "gpt-4o" }] },
    { provider: "anthropic", baseUrl: "https://api.anthropic.com", catalog: ["claude-sonnet-4-5"], served: [{ id: "claude-sonnet-4-5", displayName: "Claude Sonnet 4.5" }] },
  ],
  ...over,
});

const text = (lines: { t: string }[][]): string => lines.map((l) => l.map((s) => s.t).join("")).join("\n");

describe("building the list", () => {
  it("lists each provider's served models by name, then the catalog's it did not serve; one row per model", () => {
    const p = buildModelPicker(choices());
    expect(p.rows.map((r) => `${r.spec} [${r.note}]`)).toEqual([
      "openai:llama3.2:3b [served]",
      "openai:qwen2.5-coder:7b [served]",
      "openai:gpt-4o [served, catalog]",
      "openai:gpt-5 [catalog]",
      "anthropic:claude-sonnet-4-5 [served: Claude Sonnet 4.5, catalog]",
    ]);
    // the model in use is selected
    expect(p.index).toBe(0);
    expect(p.rows[0]!.current).toBe(true);
    expect(p.notes).toEqual([]);
  });

  it("a server that could not list its models leaves a line saying why, and the catalog's models all the same", () => {
    const p = buildModelPicker({
      current: { provider: "anthropic", model: "claude-haiku-4-5" },
      providers: [{ provider: "anthropic", baseUrl: "http://127.0.0.1:9", catalog: catalogModels("anthropic"), error: "http://127.0.0.1:9 could not be reached for its model list: connect ECONNREFUSED" }],
    });
    expect(p.rows.map((r) => r.id)).toEqual(catalogModels("anthropic"));
    expect(p.notes).toEqual(["anthropic: http://127.0.0.1:9 could not be reached for its model list: connect ECONNREFUSED"]);
    expect(p.rows[p.index]!.id).toBe("claude-haiku-4-5");
  });

  it("keeps the model in use in the list when neither the server nor the catalog names it", () => {
    const p = buildModelPicker({ current: { provider: "openai", model: "my-finetune" }, providers: [{ provider: "openai", baseUrl: "http://x/v1", catalog: ["gpt-4o"], error: "down" }] });
    expect(p.rows.map((r) => r.spec)).toEqual(["openai:gpt-4o", "openai:my-finetune"]);
    expect(p.index).toBe(1);
  });

  it("says when the server listed more models than were read", () => {
    expect(buildModelPicker({ current: { provider: "openai", model: "a" }, providers: [{ provider: "openai", baseUrl: "u", catalog: [], served: [{ id: "a" }], more: true }] }).notes).toEqual([
      "openai: the server lists more models than shown",
    ]);
  });
});

describe("drawing the list", () => {
  const keys = { move: "↑/↓", choose: "Enter", close: "Esc" };

  it("numbers the first nine rows, marks the current one, and keeps failures and keys in view", () => {
    const p = buildModelPicker(choices());
    p.notes.push("anthropic: refused (401)");
    const box = modelsBox(p, 100, 30, keys);
    const t = text(box.lines);
    expect(t).toContain("Models (5)");
    expect(t).toMatch(/ 1 {2}openai:llama3\.2:3b +served +\(current\) +│/);
    expect(t).toMatch(/ 2 {2}openai:qwen2\.5-coder:7b/);
    expect(t).toMatch(/ 5 {2}anthropic:claude-sonnet-4-5 +served: Claude Sonnet 4\.5, catalog/);
    expect(t).toContain("anthropic: refused (401)");
    expect(t).toContain("1–5 pick by number");
    for (const l of box.lines) expect(l.map((s) => s.t).join("").length).toBe(box.width);
  });

  it("before it is ready, says where typing goes instead of offering choices", () => {
    const t = text(modelsBox(buildModelPicker(choices()), 100, 30, keys, false).lines);
    expect(t).toContain("typing goes to the prompt");
    expect(t).not.toContain("pick by number");
  });

  it("scrolls to the selection in a short box; rows past nine have no number", () => {
    const many: ModelChoices = { current: { provider: "openai", model: "m14" }, providers: [{ provider: "openai", baseUrl: "u", catalog: [], served: Array.from({ length: 15 }, (_, i) => ({ id: `m${i}` })) }] };
    const p = buildModelPicker(many);
    const t = text(modelsBox(p, 60, 12, keys).lines);
    expect(t).toContain("openai:m14");
    expect(t).not.toContain("openai:m0 ");
    expect(t).not.toMatch(/\b15 {2}openai/);
    expect(NUMBERED).toBe(9);
  });
});

describe("keys in the list", () => {
  const VIEW: RouteView = { attached: true, modal: "models", boxReady: true, focus: "input", paneOpen: false, paneCovers: true, interruptible: false, promptEmpty: true, held: false };
  const route = (bytes: string, over: Partial<RouteView> = {}): Intent[] => {
    const p = new KeyParser();
    const r = new KeyRouter(defaultKeymap());
    return [...p.feed(bytes), ...p.flush()].flatMap((ev) => r.route(ev, { ...VIEW, ...over }));
  };

  it("a ready list: a number chooses its row; arrows move; Enter chooses the selection; Esc closes", () => {
    expect(route("3")).toEqual([{ type: "pickerChoose", index: 2 }]);
    expect(route("9")).toEqual([{ type: "pickerChoose", index: 8 }]);
    expect(route(KEYS.down)).toEqual([{ type: "pickerMove", by: 1 }]);
    expect(route(KEYS.up)).toEqual([{ type: "pickerMove", by: -1 }]);
    expect(route(KEYS.enter)).toEqual([{ type: "pickerChoose" }]);
    expect(route(KEYS.escape)).toEqual([{ type: "pickerClose" }]);
    // 0 numbers no row: typing on goes to the prompt, and the list waits again
    expect(route("0")).toEqual([{ type: "typedAhead" }, { type: "type", ch: "0" }]);
  });

  it("a list not ready yet chooses nothing: digits, Enter and letters typed ahead stay the prompt's", () => {
    const early = { boxReady: false };
    expect(route("2", early)).toEqual([{ type: "typedAhead" }, { type: "type", ch: "2" }]);
    expect(route("hello", early).filter((i) => i.type === "type").map((i) => (i.type === "type" ? i.ch : "")).join("")).toBe("hello");
    expect(route(KEYS.enter, early).map((i) => i.type)).toEqual(["typedAhead", "flash"]);
  });

  it("the session picker takes no number", () => {
    expect(route("2", { modal: "sessions" })).toEqual([{ type: "typedAhead" }, { type: "type", ch: "2" }]);
  });
});
