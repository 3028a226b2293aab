// Reasoning asked for a model that takes none: nothing is sent (the
// adapters' rule, test/unit/provider-encode.test.ts) and the status line says so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { statusLine, type StatusInput } from "../../src/ui/status.js";
import { lineText } from "../../src/ui/style.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";
import type { ReasoningLevel } from "../../src/provider/types.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

async function infoFor(model: string, reasoning: ReasoningLevel) {
  const { app } = await makeApp(fake, { provider: "openai", model, reasoning });
  try {
    return app.info();
  } finally {
    await app.close();
  }
}

const line = (info: StatusInput["info"]): string =>
  lineText(statusLine({ info, sessionId: "0123456789abcdef", state: "idle", busy: false, now: 0, km: defaultKeymap() }, 200));

describe("the status line when reasoning is not available for the model", () => {
  it("says so for gpt-4o with reasoning high, and not for a model that reasons, an unknown one, or reasoning off", async () => {
    const gpt4o = await infoFor("gpt-4o", "high");
    expect(gpt4o.reasoningNote).toBe("reasoning not available for gpt-4o");
    // the mode and the sandbox stand between the model and the note
    expect(line(gpt4o)).toMatch(/openai\/gpt-4o · (?:[^·]+ · )*reasoning not available for gpt-4o · session/);
    for (const [model, level] of [
      ["o3", "high"],
      ["qwen3:8b", "high"],
      ["gpt-4o", "off"],
    ] as const) {
      const info = await infoFor(model, level);
      expect(info.reasoningNote, `${model} ${level}`).toBeUndefined();
      expect(line(info)).not.toContain("reasoning");
    }
  });
});
