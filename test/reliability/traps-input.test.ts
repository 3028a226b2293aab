// Traps of what enters a session, through the built CLI against the strict fake, which here
// also decodes every image and refuses a body holding a lone surrogate, as the real APIs do
// (test/helpers/fake-strict-body.ts). Each once broke a session for good: an undecodable image
// was stored and sent, refused, with every later request; an image the provider refused
// anyway was replayed for ever; a lone surrogate from a server was stored and made every
// later body invalid JSON; an answer cut at the output bound was printed as whole. For each:
// what the person is told, that the next turn works, and that no stored message is lost.
import { describe, expect } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { type Step } from "../helpers/fake-provider.js";
import { CLI, runCli, startCli } from "../helpers/cli.js";
import { KEYS, spawnPty } from "../helpers/pty.js";
import { readFileSync } from "node:fs";
import { corruptJpeg, notAnImage, pngImage, truncatedPng, truncatedWebp, zeroGif } from "../helpers/images.js";
import { openStore } from "../../src/session/store/store.js";
import type { ImageBlock } from "../../src/record/types.js";
import {
  anthropicArgs,
  doneWithPeak,
  messagesLost,
  readRecord,
  writeConfig,
} from "./lib.js";
import { trapSuite } from "./trap-suite.js";

const KEY = "sk-ant-reliability-INPUT-93c1d0";
const { home, fake, nextTurnWorks, trap } = trapSuite(KEY, "input");

/** Each broken image, with what the refusal must name. */
const BROKEN: Array<{ file: string; bytes: () => Buffer; said: RegExp }> = [
  { file: "cut.png", bytes: truncatedPng, said: /cut\.png is not a usable image: the PNG does not decode \(its data ends early\)/ },
  { file: "empty.gif", bytes: zeroGif, said: /empty\.gif is not a usable image: its GIF header says 0×0 px; an image needs at least 1×1/ },
  { file: "scan.jpg", bytes: corruptJpeg, said: /scan\.jpg is not a usable image: the JPEG does not decode/ },
  { file: "notes.png", bytes: notAnImage, said: /notes\.png is not a usable image: its bytes do not start as a PNG, JPEG, GIF or WebP image does \(wrong magic\)/ },
  { file: "cut.webp", bytes: truncatedWebp, said: /cut\.webp is not a usable image: / },
];

describe("images", () => {
  trap(
    "undecodable images (--image): a truncated PNG, a 0×0 GIF, a corrupt JPEG, wrong magic, a cut WebP are refused by name; nothing is sent or stored",
    "undecodable image",
    async (fig) => {
      const f = await fake();
      const h = await home();
      // a first turn, so the refusals have a record to keep whole
      f.script({ text: "A first answer." });
      expect((await runCli(["-p", "hello", ...anthropicArgs(f)], h)).code).toBe(0);
      const before = await readRecord(h.db);
      for (const b of BROKEN) {
        await fs.writeFile(path.join(h.workspace, b.file), b.bytes());
        const r = await runCli(["-p", "what is this?", "--continue", "--image", b.file, ...anthropicArgs(f)], h);
        expect(r.code, b.file).toBe(1);
        expect(r.stderr, b.file).toMatch(b.said);
      }
      expect(f.requests.length).toBe(1);
      const after = await readRecord(h.db);
      expect(after.messages.length).toBe(before.messages.length);
      fig.detail = `${BROKEN.length} kinds refused at the door, 0 sent`;
      return nextTurnWorks(f, h, anthropicArgs(f));
    },
  );

  trap(
    "an image the provider refuses anyway (400 naming it): marked refused in the record, never deleted; the request goes again with a marker saying so",
    "refused image",
    async (fig) => {
      const f = await fake();
      const h = await home();
      await fs.writeFile(path.join(h.workspace, "shot.png"), pngImage(24, 24));
      f.script({ text: "I see a gradient." });
      expect((await runCli(["-p", "look", "--image", "shot.png", ...anthropicArgs(f)], h)).code).toBe(0);
      const before = await readRecord(h.db);
      // the provider refuses the stored image, in Anthropic's words and with its path
      f.script(
        { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "messages.0.content.0.image.source.base64.data: Could not process image" } } },
        { text: "Going on without the image." },
      );
      const r = await runCli(["-p", "and the colours?", "--continue", ...anthropicArgs(f)], h);
      expect(r.stderr).toMatch(/The provider refused an image of this session \(.*Could not process image\); it is kept in the record, marked refused/);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Going on without the image.\n");
      const resent = JSON.stringify(f.requests.at(-1)!.body);
      expect(resent).toContain("Image not seen: refused by the provider when it was sent before");
      expect(resent).not.toContain('"type":"image"');
      const after = await readRecord(h.db);
      const img = after.messages[0]!.blocks.find((b): b is ImageBlock => b.type === "image");
      expect(img?.data).toBe(pngImage(24, 24).toString("base64"));
      expect(img?.refused).toMatch(/Could not process image/);
      // the only change to the old record is the mark
      expect(messagesLost(before.messages.slice(1), after.messages)).toBe(0);
      fig.detail = "1 image marked, 1 retry";
      return nextTurnWorks(f, h, anthropicArgs(f));
    },
  );

  trap(
    "an undecodable image stored by an older version: the strict fake refuses it, it is marked, and --continue works",
    "refused image (stored undecodable)",
    async (fig) => {
      const f = await fake();
      const h = await home();
      await fs.writeFile(path.join(h.workspace, "shot.png"), pngImage(24, 24));
      f.script({ text: "Seen." });
      expect((await runCli(["-p", "look", "--image", "shot.png", ...anthropicArgs(f)], h)).code).toBe(0);
      // what an older version stored: the same block over a truncated PNG
      const store = await openStore(h.db);
      try {
        const rec = await readRecord(h.db);
        const m = rec.messages[0]!;
        await store.updateMessage(
          m.id,
          m.blocks.map((b) => (b.type === "image" ? { ...b, data: truncatedPng().toString("base64") } : b)),
          m.status,
        );
      } finally {
        await store.close();
      }
      f.script({ text: "Going on." });
      const r = await runCli(["-p", "again", "--continue", ...anthropicArgs(f)], h);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Going on.\n");
      expect(f.rejections().at(-1)).toMatch(/Could not process image/);
      const after = await readRecord(h.db);
      expect(after.messages[0]!.blocks.find((b) => b.type === "image")).toMatchObject({ refused: expect.stringMatching(/Could not process image/) });
      fig.detail = "refused once by the fake's decoder, then sent as a marker";
      return nextTurnWorks(f, h, anthropicArgs(f));
    },
  );
});

const LONE = "\ud800";

describe("text", () => {
  for (const shape of ["anthropic", "chat", "responses"] as const) {
    trap(
      `${shape}: a server streams lone surrogates in text, reasoning and tool input: stored as U+FFFD, and every later body is well-formed JSON`,
      `lone surrogate (${shape})`,
      async (fig) => {
        const f = await fake();
        const h = await home();
        await fs.writeFile(path.join(h.workspace, "notes.txt"), "the word is heron\n");
        if (shape === "responses") await writeConfig(h, { api: "responses" });
        const args =
          shape === "anthropic"
            ? [...anthropicArgs(f), "--permission", "auto", "--reasoning", "high"]
            : ["--provider", "openai", "--model", shape === "responses" ? "gpt-5" : "gpt-4o", "--base-url", f.openaiBase, "--permission", "auto"];
        const steps: Step[] = [
          {
            ...(shape !== "chat" ? { reasoning: `thinking ${LONE} hard` } : {}),
            text: `Reading ${LONE}`,
            toolCalls: [{ name: "read", input: { path: "notes.txt", note: `x${LONE}y` } }],
          },
          { text: `Done ${"\udc00"} reading.` },
        ];
        f.script(...steps);
        const r = await runCli(["-p", "read the notes", ...args], h);
        expect(f.rejections()).toEqual([]);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe("Done \ufffd reading.\n");
        const rec = await readRecord(h.db);
        const all = JSON.stringify(rec.messages.map((m) => m.blocks));
        expect(all).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
        expect(all).toContain("\ufffd");
        // the request after the tool carried the live round: its JSON was well-formed
        expect(f.requests.length).toBe(2);
        fig.detail = "3 places, 0 refused";
        return nextTurnWorks(f, h, args);
      },
    );
  }
});

describe("the output bound", () => {
  trap(
    "an answer that hits max_tokens: named as the cause on stderr (exit 1), stored complete, memory bounded",
    "output bound",
    async (fig) => {
      const f = await fake();
      const h = await home();
      // 3 MB of answer in small deltas, then the stop at the bound
      const text = "word ".repeat(600_000);
      f.script({ text, wordsPerEvent: 40, stop: "max_tokens" });
      const run = startCli(["-p", "write a very long answer", ...anthropicArgs(f)], h);
      const { r, peak } = await doneWithPeak(run);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/albedo-tui: The answer was cut at the output limit of [\d,]+ tokens \(maxOutputTokens\)/);
      expect(r.stderr).not.toMatch(/interrupted/);
      expect(r.stdout.length).toBe(text.length + 1);
      const rec = await readRecord(h.db);
      expect(rec.messages.map((m) => m.status)).toEqual(["complete", "complete"]);
      const mb = Math.round(peak / 1024);
      expect(mb).toBeLessThan(400);
      fig.detail = `3 MB answer, peak RSS ${mb} MB`;
      return nextTurnWorks(f, h, anthropicArgs(f));
    },
    180_000,
  );

  trap(
    "in the screen: a 3 MB answer on one line cut at max_tokens is named (not 'interrupted') and its memory comes back",
    "output bound (screen)",
    async (fig) => {
      const f = await fake();
      const h = await home();
      // one line with no break: the hardest shape for the layout
      f.script({ text: "word ".repeat(600_000), wordsPerEvent: 40, stop: "max_tokens" });
      const args = anthropicArgs(f);
      const s = spawnPty(process.execPath, [CLI, ...args], { cols: 120, rows: 40, cwd: h.workspace, env: { ...h.env, TERM: "xterm-256color" } });
      try {
        await s.waitFor("Type a request", 30_000);
        s.send("write a very long answer");
        await s.waitFor("write a very long answer");
        s.send(KEYS.enter);
        await s.waitFor(/The answer was cut at the output limit of [\d,]+ tokens \(maxOutputTokens\)/, 150_000);
        await s.waitFor(/^ idle · /m, 30_000);
        expect(s.screenText()).not.toMatch(/interrupted/);
        const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.pid}/status`, "utf8"))![1]) / 1024;
        // the answer's layout and stream are garbage once it is stored: resident memory falls
        // back under 200 MB (it peaks near 400 MB while the megabytes stream)
        const end = Date.now() + 60_000;
        while (rss() >= 200 && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
        const mb = Math.round(rss());
        expect(mb).toBeLessThan(200);
        fig.detail = `3 MB one-line answer, ${mb} MB resident after`;
      } finally {
        s.kill();
      }
      const rec = await readRecord(h.db);
      expect(rec.messages.map((m) => m.status)).toEqual(["complete", "complete"]);
      return nextTurnWorks(f, h, args);
    },
    240_000,
  );
});
