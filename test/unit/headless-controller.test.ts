// Headless mode is a front end like the screen: it talks to the Controller interface, not to
// the App behind it, so any controller runs it. Driven here by the scripted one the screen's
// tests use; the real App behind it is test/integration/headless.test.ts's.
import { afterEach, describe, expect, it, vi } from "vitest";
import { runHeadless } from "../../src/ui/headless.js";
import { ScriptedController, asController } from "../helpers/screen.js";

/** what runHeadless writes to stdout and stderr while `fn` runs */
async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  const code = await fn();
  vi.restoreAllMocks();
  return { code, out, err };
}

describe("headless mode over the Controller interface", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("prints the load problems inert, runs the prompt, and writes the final text", async () => {
    const c = new ScriptedController();
    c.problems = ["message #3 could not be read: \u001b]0;owned\u0007bad JSON"];
    c.outcome = { ok: true, finalText: "the answer" };
    const r = await captured(() => runHeadless(asController(c), "hello", []));
    expect(r.code).toBe(0);
    expect(c.submitted.map((s) => s.text)).toEqual(["hello"]);
    expect(r.out).toBe("the answer\n");
    expect(r.err).toContain("warning: message #3 could not be read: bad JSON\n");
    expect(r.err).not.toContain("\u001b");
  });

  it("exits 1 with the turn's error when the turn fails", async () => {
    const c = new ScriptedController();
    c.outcome = { ok: false, error: "the provider said no", finalText: "" };
    const r = await captured(() => runHeadless(asController(c), "hello", []));
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("albedo-tui: the provider said no\n");
  });
});
