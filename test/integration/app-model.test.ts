// /model across providers: what the person is told when the session holds images the new
// provider cannot take (they cross as a marker: test/integration/images-across.test.ts).
import { paddedPng } from "../helpers/images.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());

// a 3×2 PNG header, padded to the size a test needs (image-size reads only the header)
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==",
  "base64",
);

describe("/model", () => {
  it("says when the session holds images larger than the new provider accepts", async () => {
    const { app, workspace } = await makeApp(fake, { provider: "openai" });
    // a whole PNG, padded by a chunk decoders skip: images are decoded where they enter
    const big = paddedPng(5 * 1024 * 1024, 3, 2);
    await fs.writeFile(path.join(workspace, "big.png"), big);
    fake.script({ text: "seen" });
    await app.submit("look", [await app.loadImage("big.png")]);
    const said = await app.setModel("anthropic:claude-sonnet-4-5");
    expect(said).toMatch(/^Model: anthropic:claude-sonnet-4-5 \(context window 200,000 tokens\)\./);
    expect(said).toContain("1 image in this session is more than anthropic accepts: it goes as a note saying so, not as an image (switch back to send it).");
    // a model that cannot see gets the marker instead, so nothing to warn about
    // (its own note says it is assumed to take no images)
    const unknown = await app.setModel("anthropic:some-unknown-model");
    expect(unknown).toContain("no images");
    expect(unknown).not.toMatch(/image in this session|images in this session/);
    await app.close();
  });

  it("names the config file this run reads when a key is missing", async () => {
    const { app } = await makeApp(fake, { credentials: { keys: {}, baseUrls: {} }, configFile: "/tmp/cfg/albedo.json", headless: false });
    expect(app.info().keyProblem).toBe('No API key for anthropic: set ANTHROPIC_API_KEY or "anthropicApiKey" in /tmp/cfg/albedo.json.');
    await app.close();
  });
});
