// The session's one event channel, as a front end reads it across a real turn (real SQLite,
// real HTTP to the strict fake provider): every streamed answer is named before its first
// delta, and its checkpoints and its complete message carry the same name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";
import type { SessionEvent } from "../../src/session/turn/events.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

describe("session events", () => {
  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: answers are named before their first delta; their messages carry the name; tool input is shown arriving`, async () => {
      const { app } = await makeApp(fake, { provider });
      const seen: SessionEvent[] = [];
      // a message's status as it was when told (the store's object is updated in place later)
      const statusAt = new Map<SessionEvent, string>();
      app.subscribe((e) => {
        seen.push(e);
        if (e.type === "message") statusAt.set(e, e.msg.status);
      });
      fake.script(
        { text: "Let me write the file now, it takes a moment.", delayMs: 5, wordsPerEvent: 1, toolCalls: [{ name: "write", input: { path: "a.txt", content: "x".repeat(5000) } }] },
        { text: "Written.", delayMs: 5, wordsPerEvent: 1 },
      );
      await app.submit("write a.txt");
      expect(fake.rejections()).toEqual([]);

      const starts = seen.filter((e): e is Extract<SessionEvent, { type: "answer_start" }> => e.type === "answer_start").map((e) => e.answer);
      expect(starts).toHaveLength(2);
      expect(new Set(starts).size).toBe(2);
      for (const id of starts) {
        const at = seen.findIndex((e) => e.type === "answer_start" && e.answer === id);
        const firstDelta = seen.findIndex((e) => e.type === "text_delta" && e.answer === id);
        expect(firstDelta).toBeGreaterThan(at);
        // the complete assistant message names the answer it completes
        const done = seen.filter((e) => e.type === "message" && e.answer === id && statusAt.get(e) === "complete");
        expect(done).toHaveLength(1);
      }
      // deltas belong to the answer that was started last
      let current: number | undefined;
      for (const e of seen) {
        if (e.type === "answer_start") current = e.answer;
        if (e.type === "text_delta") expect(e.answer).toBe(current);
      }
      // user messages carry no answer
      expect(seen.filter((e) => e.type === "message" && e.msg.role === "user").every((e) => e.type === "message" && e.answer === undefined)).toBe(true);
      // the write's input was shown arriving, growing, under the first answer
      const inputs = seen.filter((e): e is Extract<SessionEvent, { type: "tool_input" }> => e.type === "tool_input");
      expect(inputs.length).toBeGreaterThan(0);
      expect(inputs.every((e) => e.answer === starts[0] && e.name === "write")).toBe(true);
      expect(inputs.at(-1)!.bytes).toBeGreaterThan(5000);
      expect(inputs.map((e) => e.bytes)).toEqual([...inputs.map((e) => e.bytes)].sort((a, b) => a - b));
      // the turn ends once, after the last message
      expect(seen.filter((e) => e.type === "turn_end")).toEqual([{ type: "turn_end", ok: true }]);
      await app.close();
    });
  }

  // sandbox off: inside the sandbox, ask mode runs commands without a question
  it("a permission question answered twice runs the tool once", async () => {
    const { app, workspace } = await makeApp(fake, { permission: "ask", headless: false, sandbox: "off" });
    let asks = 0;
    app.subscribe(
      (e) => {
        if (e.type !== "permission") return;
        asks++;
        e.answer("once");
        e.answer("once");
      },
      { answersPermissions: true },
    );
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo ran >> count.txt" } }] }, { text: "done" });
    await app.submit("run it");
    expect(asks).toBe(1);
    const fs = await import("node:fs/promises");
    expect(await fs.readFile(`${workspace}/count.txt`, "utf8")).toBe("ran\n");
    await app.close();
  });

  it("with no subscriber that answers permissions, a tool that needs a yes is refused, not left waiting", async () => {
    const { app } = await makeApp(fake, { permission: "ask", headless: false, sandbox: "off" });
    const ends: string[] = [];
    app.subscribe((e) => {
      if (e.type === "tool_end") ends.push(e.output);
    });
    fake.script({ toolCalls: [{ name: "bash", input: { command: "echo hi" } }] }, { text: "ok" });
    await app.submit("run it");
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatch(/denied|refused|not allowed/i);
    await app.close();
  });
});
