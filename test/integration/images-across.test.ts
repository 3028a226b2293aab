// Images across providers: an image is sent as itself only where the
// target takes it. Attached under OpenAI (20 MB, no side limit) then /model to Anthropic
// (5 MB of base64, 8000 px a side), the next request is one the strict fake accepts, with
// the marker saying why where the image was; the other way round the image stays native.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { request } from "undici";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { paddedPng } from "../helpers/images.js";
import { makeApp, TEST_KEY } from "../helpers/app.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ key: TEST_KEY });
});
afterAll(() => fake.close());

// a 3×2 PNG; image-size (ours and the fake's) reads only its header
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIklEQVR4AWNkYGD4z8jOy8DIzsvAwiyqzsDIzsvAyM7LAAAceQGYlkTQgAAAAABJRU5ErkJggg==",
  "base64",
);

/** A whole PNG of `bytes` bytes (padded by a chunk decoders skip) that is `width`×`height`:
 * the client and the fake decode every image, so a header alone no longer passes. */
function png(bytes: number, width = 3, height = 2): Buffer {
  return paddedPng(bytes, width, height);
}

const both = () => ({ credentials: { keys: { anthropic: TEST_KEY, openai: TEST_KEY }, baseUrls: { anthropic: fake.anthropicBase, openai: fake.openaiBase } } });

type App = Awaited<ReturnType<typeof makeApp>>["app"];

/** Everything the inspector shows of the last request, every section and page. */
async function inspectorText(app: App): Promise<string> {
  const view = await app.inspectorView();
  if (view.state !== "current") throw new Error(`expected a capture, got ${view.state}`);
  let all = "";
  for (const [i, s] of view.sections.entries()) for (let p = 0; p < s.pages; p++) all += (await app.inspectorPage(i, p))!.text;
  return all;
}

describe("images across providers", () => {
  it("the strict fake refuses an image over Anthropic's limits with the real API's words", async () => {
    const send = async (data: string) => {
      const r = await request(`${fake.anthropicBase}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": TEST_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({
          model: "claude-sonnet-4-5",
          max_tokens: 10,
          messages: [{ role: "user", content: [{ type: "text", text: "look" }, { type: "image", source: { type: "base64", media_type: "image/png", data } }] }],
        }),
      });
      return { status: r.statusCode, body: (await r.body.json()) as { error: { message: string } } };
    };
    const big = await send(png(8 * 1_048_576).toString("base64"));
    expect(big.status).toBe(400);
    expect(big.body.error.message).toBe("messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 11184812 bytes > 5242880 bytes");
    const wide = await send(png(20000, 9000, 300).toString("base64"));
    expect(wide.body.error.message).toBe("messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels");
  });

  it("OpenAI → Anthropic: images Anthropic cannot take cross as the marker, and the next request is accepted", async () => {
    const { app, workspace } = await makeApp(fake, { provider: "openai", ...both() });
    await fs.writeFile(path.join(workspace, "big.png"), png(8 * 1_048_576));
    await fs.writeFile(path.join(workspace, "wide.png"), png(20000, 9000, 300));
    await fs.writeFile(path.join(workspace, "fine.png"), png(4000, 600, 400));
    fake.script({ text: "seen" }, { text: "still here" });
    const from = fake.requests.length;
    const refusedBefore = fake.rejections().length;
    await app.submit("look", [await app.loadImage("big.png"), await app.loadImage("wide.png"), await app.loadImage("fine.png")]);
    // OpenAI took all three as images
    expect(fake.requests[from]!.rejected).toBeUndefined();
    expect(fake.requests[from]!.rawBody.match(/data:image\/png;base64,/g)).toHaveLength(3);

    const said = await app.setModel("anthropic:claude-sonnet-4-5");
    expect(said).toContain("2 images in this session are more than anthropic accepts: they go as a note saying so, not as images");
    await app.submit("and now?");
    const sent = fake.requests.at(-1)!;
    expect(sent.shape).toBe("anthropic");
    expect(sent.rejected).toBeUndefined();
    expect(fake.rejections()).toHaveLength(refusedBefore);
    const text = sent.rawBody;
    expect(text).toContain("[Image not seen: larger than this provider accepts (image/png, 8388608 bytes, 3×2; 10.7 MB as base64; anthropic takes up to 5 MB).]");
    expect(text).toContain("[Image not seen: larger than this provider accepts (image/png, 20000 bytes, 9000×300; anthropic takes up to 8000 px a side).]");
    // the one Anthropic takes still goes as an image
    expect(text.match(/"type":"image"/g)).toHaveLength(1);
    // the inspector shows what was sent: the markers in place of the two images
    const shown = await inspectorText(app);
    expect(shown).toContain("[Image not seen: larger than this provider accepts (image/png, 8388608 bytes, 3×2; 10.7 MB as base64; anthropic takes up to 5 MB).]");
    expect(shown).toContain("anthropic takes up to 8000 px a side");
    await app.close();
  });

  it("Anthropic → OpenAI: an image Anthropic took stays an image", async () => {
    const { app, workspace } = await makeApp(fake, { provider: "anthropic", ...both() });
    await fs.writeFile(path.join(workspace, "shot.png"), png(3 * 1_048_576, 1600, 7000));
    fake.script({ text: "seen" }, { text: "still here" });
    await app.submit("look", [await app.loadImage("shot.png")]);
    expect(fake.requests.at(-1)!.rejected).toBeUndefined();
    const said = await app.setModel("openai:gpt-4o");
    expect(said).not.toContain("image");
    await app.submit("and now?");
    const sent = fake.requests.at(-1)!;
    expect(sent.shape).toBe("openai");
    expect(sent.rejected).toBeUndefined();
    expect(sent.rawBody).not.toContain("Image not seen");
    expect(sent.rawBody.match(/data:image\/png;base64,/g)).toHaveLength(1);
    await app.close();
  });

  it("OpenAI → Anthropic: photos each within Anthropic's limits but too many bytes together go newest first; the request is accepted", async () => {
    const { app, workspace } = await makeApp(fake, { provider: "openai", ...both() });
    const files: string[] = [];
    for (let i = 0; i < 8; i++) {
      const name = `photo${i}.png`;
      await fs.writeFile(path.join(workspace, name), png(3_500_000, 1500, 1000));
      files.push(name);
    }
    fake.script({ text: "seen" }, { text: "still here" });
    const refusedBefore = fake.rejections().length;
    await app.submit("look", await Promise.all(files.map((f) => app.loadImage(f))));
    expect(fake.requests.at(-1)!.rejected).toBeUndefined();
    const said = await app.setModel("anthropic:claude-sonnet-4-5");
    expect(said).toContain("3 images in this session are more than anthropic accepts");
    await app.submit("and now?");
    const sent = fake.requests.at(-1)!;
    expect(sent.shape).toBe("anthropic");
    // not all eight (37 MB of base64): that request, and every later one, would be refused
    expect(sent.rejected).toBeUndefined();
    expect(fake.rejections()).toHaveLength(refusedBefore);
    expect(sent.rawBody.match(/"type":"image"/g)).toHaveLength(5);
    expect(sent.rawBody.match(/more images than this provider accepts in one request/g)).toHaveLength(3);
    await app.close();
  });

  it("refuses at /image what the current provider cannot take, by name", async () => {
    const { app, workspace } = await makeApp(fake, { provider: "anthropic", ...both() });
    await fs.writeFile(path.join(workspace, "wide.png"), png(20000, 9000, 300));
    await expect(app.loadImage("wide.png")).rejects.toThrow(
      "wide.png is larger than this provider accepts (image/png, 9000×300 px; anthropic takes up to 8000 px a side). Resize it and attach it again.",
    );
    await app.close();
  });
});
