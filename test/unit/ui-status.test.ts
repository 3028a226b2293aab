import { describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { hintLine, startingHint, startingStatus, statusLine, type StatusInput } from "../../src/ui/status.js";
import { lineText } from "../../src/ui/style.js";
import { lineWidth } from "../../src/ui/text.js";

const km = defaultKeymap();
const BASE: StatusInput = {
  info: { provider: "anthropic", model: "claude-sonnet-4-5" },
  sessionId: "0123456789abcdef",
  state: "idle",
  busy: false,
  now: 10_000,
  context: { estimate: "≈ 41,200 tokens (chars/4)", figure: { basis: "last request", tokens: 41_200, method: "chars/4" }, window: 200_000, compaction: "microcompact: 14 outputs, 412 kB" },
  usage: { inputTokens: 1200, outputTokens: 34 },
  km,
};
const status = (over: Partial<StatusInput>, cols = 200): string => lineText(statusLine({ ...BASE, ...over }, cols));

describe("the status line", () => {
  it("names the state, the model, the session, the context estimate, the strategy and the usage", () => {
    expect(status({})).toBe(
      " idle · anthropic/claude-sonnet-4-5 · session 01234567 · ≈ 41,200 / 200,000 tokens (chars/4) · microcompact: 14 outputs, 412 kB · provider usage: 1,200 in / 34 out · ^O context".padEnd(200),
    );
    expect(status({ busy: true })).toMatch(/^ working · /);
    expect(status({ state: "tool", detail: "bash" })).toMatch(/^ running bash · /);
    expect(status({ state: "permission", detail: "write" })).toMatch(/^ waiting for permission \(write\) · /);
    expect(status({ retry: { attempt: 2, until: 20_000, reason: "429" }, state: "streaming" })).toMatch(/^ retrying \(attempt 2\) · /);
    expect(status({ retry: { attempt: 2, until: 5_000, reason: "429" }, state: "streaming" })).toMatch(/^ streaming · /);
  });

  it("drops the least important parts first and is always exactly as wide as the screen", () => {
    expect(status({}, 100)).not.toContain("provider usage");
    expect(status({}, 100)).toContain("^O context");
    const narrow = status({}, 40);
    expect(narrow).toMatch(/^ idle · .*\^O context/);
    for (const cols of [10, 40, 80, 100, 300]) expect(lineWidth(statusLine(BASE, cols))).toBe(cols);
  });

  it("shortens a key problem before it would drop the context key", () => {
    const s = status({ info: { ...BASE.info, keyProblem: "No API key for anthropic: set ANTHROPIC_API_KEY or write it in the config file" } }, 60);
    expect(s).toContain("! No API key");
    expect(s).toContain("…");
    expect(s).toContain("^O context");
  });

  it("makes the model name and the tool name inert", () => {
    const s = status({ info: { provider: "openai", model: "gpt\x1b]0;title\x07-4o" }, state: "tool", detail: "x\x1b[2J" });
    expect(s).not.toContain("\x1b");
  });
});

describe("the hint line", () => {
  const hint = (over: Partial<Parameters<typeof hintLine>[0]>, cols = 100): string =>
    lineText(hintLine({ attachments: 0, flash: undefined, focus: "input", prompt: "", following: true, km, ...over }, cols));

  it("shows the keys where the focus is, the command being typed, a flash first", () => {
    expect(hint({})).toMatch(/─ Enter send · Alt-Enter newline · Shift-Tab transcript · \/help$/);
    expect(hint({ prompt: "/mo" })).toContain("/model [NAME | anthropic:NAME | openai:NAME] — show or switch the model / provider");
    expect(hint({ prompt: "/nope" })).toContain("no such command");
    expect(hint({ following: false })).toContain("↓ more below");
    expect(hint({ focus: "transcript" })).toContain("transcript: ↑/↓ select");
    expect(hint({ flash: { text: "switched", style: "ok", until: 1 } })).toMatch(/ switched$/);
    expect(hint({ attachments: 2 })).toMatch(/^\[2 images\] \(\/image clear\) ─/);
  });

  it("before the session is open: what Enter does, and that it is held", () => {
    expect(lineText(startingHint({ flash: undefined, held: false, km }, 80))).toMatch(/─ opening the session · Enter sends once it is open$/);
    expect(lineText(startingHint({ flash: undefined, held: true, km }, 80))).toContain("sent once the session is open · Esc keeps it in the prompt");
    expect(lineText(startingStatus(20))).toBe(" starting…".padEnd(20));
  });
});
