// A field a server refused is remembered for the session, not for the
// life of one provider object: /model (even back to the same model) and /reload build a new
// provider, and before they forgot, so the server was asked again and refused again, with a
// second warning. The real app in-process against the strict fake over loopback HTTP.
import { afterEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp } from "../helpers/app.js";

const MODEL = "qwen2.5-coder-7b-instruct";
let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("refused fields last the session", () => {
  it("Chat (LM Studio refusing prompt_cache_key): after /model away and back, and after /reload, it is not sent again", async () => {
    fake = await startFakeProvider({ local: { server: "lmstudio", refuse: ["prompt_cache_key"] } });
    const { app } = await makeApp(fake, { provider: "openai", model: MODEL, reloadConfig: async () => ({}) });
    try {
      fake.script({ text: "one" }, { text: "two" }, { text: "three" });
      await app.submit("hi");
      expect(fake.rejections()).toEqual(["lmstudio refused prompt_cache_key"]);
      await app.setModel("openai:another-local-model");
      await app.setModel(`openai:${MODEL}`);
      await app.submit("again");
      await app.reload();
      await app.submit("and again");
      expect(fake.rejections()).toHaveLength(1);
      expect(fake.requests.map((r) => r.body.prompt_cache_key)).toEqual([expect.any(String), undefined, undefined, undefined]);
    } finally {
      await app.close();
    }
  });

  it("Responses (a server that does not know prompt_cache_key): the same after /model away and back", async () => {
    fake = await startFakeProvider({ responses: { unknownParams: ["prompt_cache_key"] } });
    const { app } = await makeApp(fake, { provider: "openai", model: MODEL, api: "responses" });
    try {
      fake.script({ text: "one" }, { text: "two" });
      await app.submit("hi");
      expect(fake.rejections()).toEqual(["Unknown parameter: 'prompt_cache_key'."]);
      await app.setModel("openai:another-local-model");
      await app.setModel(`openai:${MODEL}`);
      await app.submit("again");
      expect(fake.rejections()).toHaveLength(1);
      expect(fake.requests.map((r) => [r.shape, r.body.prompt_cache_key])).toEqual([
        ["responses", expect.any(String)],
        ["responses", undefined],
        ["responses", undefined],
      ]);
    } finally {
      await app.close();
    }
  });
});
