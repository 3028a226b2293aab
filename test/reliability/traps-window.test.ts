// Traps of the context window, through the built CLI against the strict fake, which here also
// refuses a prompt over the window in the API's own words (FakeOptions.contextWindow): each
// once broke a session for good. A paste bigger than the window was sent, refused, and sent
// again with every later turn; a session resumed with a history over the window (a smaller
// model, an old paste) could not be continued, nor summarised; one turn's opaque bodies (3 MB
// signatures or encrypted reasoning a round) made every request larger than the last. For
// each: what the person is told, that nothing known to be refused is sent, that the next turn
// works, and that no stored message is lost or changed.
import { describe, expect } from "vitest";
import fs from "node:fs/promises";
import fsSync from "node:fs";
import path from "node:path";
import { fakeTokens, type RecordedRequest, type Step } from "../helpers/fake-provider.js";
import { toolLoopThinkingRefusal } from "../helpers/fake-thinking.js";
import { runCli, startCli, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";
import { SUMMARY_SYSTEM } from "../../src/compaction/summary.js";
import { LEFT_OUT_PREFIX } from "../../src/compaction/window.js";
import {
  anthropicArgs,
  doneWithPeak,
  messagesLost,
  readRecord,
  textOf,
  writeConfig,
  type StoredRecord,
} from "./lib.js";
import { trapSuite } from "./trap-suite.js";

const KEY = "sk-ant-reliability-WINDOW-4b8e21";
const { home, fake, nextTurnWorks, trap } = trapSuite(KEY, "window");
/** claude-sonnet-4-5's window in the catalog */
const WINDOW = 200_000;
const MB = 1024 * 1024;

const isSummaryRequest = (body: unknown): boolean => JSON.stringify((body as { system?: unknown } | undefined)?.system ?? "").includes(SUMMARY_SYSTEM.slice(0, 40));
/** answers every summary request, wherever compaction puts it */
const summaries = (shape: string, body: unknown): Step | undefined => (shape === "anthropic" && isSummaryRequest(body) ? { text: "SUMMARY: the user sent parts of a server log." } : undefined);

/** A server log of about `chars` characters, as a person would paste one. */
function logText(chars: number, tag = "api"): string {
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const l = `2025-03-14T09:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z INFO ${tag} handled request id=${i} path=/api/items/${i % 977} status=200 in ${i % 50} ms\n`;
    lines.push(l);
    n += l.length;
  }
  return lines.join("").slice(0, chars);
}

async function sessionsIn(h: Home): Promise<number> {
  if (!fsSync.existsSync(h.db)) return 0;
  const store = await openStore(h.db);
  try {
    return (await store.listSessions()).length;
  } finally {
    await store.close();
  }
}

// ≈ 316,219 tokens by chars/4: the paste of the report
const PASTE = logText(1_264_876);

describe("the window", () => {
  trap(
    "a 1.26 MB paste (-p -): refused before anything is sent or stored, saved as a file the model then reads in parts",
    "oversized paste",
    async () => {
      const f = await fake({ contextWindow: WINDOW });
      const h = await home();
      const r = await runCli(["-p", "-", ...anthropicArgs(f)], h, {}, PASTE);
      expect(r.code).toBe(1);
      const said =
        /^albedo-tui: Not sent: this prompt makes a request of ≈ ([\d,]+) tokens \(chars\/4\), more than claude-sonnet-4-5's context window of 200,000 tokens, so the provider would refuse it\. Its text is saved as (\.albedo\/pastes\/prompt-\d{8}-\d{6}\.txt) in the workspace: send a short prompt that asks the model to read that file in parts \(for example "Read \2 in parts and …"\), or trim the prompt\.$/m.exec(
          r.stderr,
        );
      expect(said, r.stderr).not.toBeNull();
      expect(Number(said![1]!.replace(/,/g, ""))).toBeGreaterThan(316_219);
      // nothing sent, nothing stored
      expect(f.requests).toHaveLength(0);
      expect(await sessionsIn(h)).toBe(0);
      const file = said![2]!;
      expect(await fs.readFile(path.join(h.workspace, file), "utf8")).toBe(PASTE);
      expect(await fs.readFile(path.join(h.workspace, ".albedo", "pastes", ".gitignore"), "utf8")).toBe("*\n");

      // what the sentence offers works: the model reads the file in parts
      f.script({ toolCalls: [{ name: "read", input: { path: file, offset: 1, limit: 200 } }] }, { text: "It is a server log of handled requests." });
      const next = await runCli(["-p", `Read ${file} in parts and say what it holds`, ...anthropicArgs(f)], h);
      expect(next.stderr).not.toContain("albedo-tui:");
      expect(next.code).toBe(0);
      expect(next.stdout).toBe("It is a server log of handled requests.\n");
      expect(f.rejections()).toEqual([]);
      expect(f.requests[1]!.rawBody).toContain("INFO api handled request id=0 path=/api/items/0");
      return nextTurnWorks(f, h, anthropicArgs(f));
    },
  );

  trap(
    "a session resumed with a paste over the window: the paste is left out of the request, kept whole in the record",
    "resume over the window (one paste)",
    async () => {
      const wide = await fake({ respond: summaries });
      const strict = await fake({ contextWindow: WINDOW, respond: summaries });
      const h = await home();
      // sent where the window was large enough (a 1M-token model)
      await writeConfig(h, { contextWindow: 1_000_000 });
      wide.script({ text: "Read it: a server log of handled requests." });
      const first = await runCli(["-p", "-", ...anthropicArgs(wide)], h, {}, PASTE);
      expect(first.code, first.stderr).toBe(0);
      // ...then continued on the model's own 200,000 tokens
      await writeConfig(h, {});
      const before = await readRecord(h.db);
      strict.script({ text: "Yes, the log you sent earlier." });
      const r = await runCli(["-p", "do you have the log?", "--continue", ...anthropicArgs(strict)], h);
      expect(r.stderr).toMatch(
        /warning: Left 1 part of the history \(≈ [\d,]+ tokens\) out of this request to fit claude-sonnet-4-5's context window of 200,000 tokens; the session's record keeps them whole\./,
      );
      expect(r.stderr).not.toContain("albedo-tui:");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Yes, the log you sent earlier.\n");
      expect(strict.rejections()).toEqual([]);
      const sent = strict.requests[0]!.rawBody;
      expect(fakeTokens(sent)).toBeLessThan(WINDOW);
      expect(sent).toContain(`${LEFT_OUT_PREFIX}the text of a user message, ≈ 316,219 tokens (1,264,876 characters). The session's record keeps it whole. It began: \\"2025-03-14T09:00:00Z INFO api handled request id=0`);
      const after = await readRecord(h.db);
      expect(messagesLost(before.messages, after.messages)).toBe(0);
      expect(textOf(after.messages[0]!)).toBe(PASTE);
      return nextTurnWorks(strict, h, anthropicArgs(strict));
    },
  );

  trap(
    "a session resumed with many turns over the window: the summary request leaves parts out to fit, and the turn goes on",
    "resume over the window (many turns)",
    async () => {
      const wide = await fake();
      const strict = await fake({ contextWindow: WINDOW, respond: summaries });
      const h = await home();
      await writeConfig(h, { contextWindow: 1_000_000 });
      // eight parts of ≈ 45,000 tokens: 360,000 in all, none of them a quarter of the window
      for (let i = 0; i < 8; i++) {
        wide.script({ text: `Noted part ${i}.` });
        const r = await runCli(["-p", "-", ...(i > 0 ? ["--continue"] : []), ...anthropicArgs(wide)], h, {}, logText(180_000, `part${i}`));
        expect(r.code, r.stderr).toBe(0);
      }
      await writeConfig(h, {});
      const before = await readRecord(h.db);
      strict.script({ text: "Parts 6 and 7 are the newest." });
      const r = await runCli(["-p", "which parts are newest?", "--continue", ...anthropicArgs(strict)], h);
      expect(r.stderr).not.toContain("albedo-tui:");
      expect(r.stderr).not.toContain("summary failed");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Parts 6 and 7 are the newest.\n");
      expect(strict.rejections()).toEqual([]);
      const [summary, turn] = strict.requests;
      expect(isSummaryRequest(summary!.body)).toBe(true);
      expect(fakeTokens(summary!.rawBody)).toBeLessThan(WINDOW);
      expect(summary!.rawBody).toContain(LEFT_OUT_PREFIX);
      expect(turn!.rawBody).toContain("SUMMARY: the user sent parts of a server log.");
      expect(fakeTokens(turn!.rawBody)).toBeLessThan(WINDOW);
      const after = await readRecord(h.db);
      expect(messagesLost(before.messages, after.messages)).toBe(0);
      return nextTurnWorks(strict, h, anthropicArgs(strict));
    },
    180_000,
  );
});

describe("a turn's own requests", () => {
  trap(
    "tool results that take a turn's next request past the window: the turn stops before sending it, and the next turn works",
    "tool results past the window",
    async () => {
      // a 20,000-token window (the config's), and a file of ≈ 10,000 tokens read again and again
      const f = await fake({ contextWindow: 20_000 });
      const h = await home();
      await writeConfig(h, { contextWindow: 20_000 });
      await fs.writeFile(path.join(h.workspace, "big.txt"), logText(40_000));
      const read: Step = { toolCalls: [{ name: "read", input: { path: "big.txt" } }] };
      // two rounds are scripted: a third request, were it sent, would get the fake's "ok"
      f.script(read, read);
      const r = await runCli(["-p", "read big.txt until you are sure", "--permission", "auto", ...anthropicArgs(f)], h);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /albedo-tui: The turn stopped before its next request: it would be ≈ [\d,]+ tokens \(chars\/4\), more than claude-sonnet-4-5's context window of 20,000 tokens\. Send another message to continue: the next turn's compaction can shorten this one's tool results\./,
      );
      // two rounds went; the third request, over the window, did not
      expect(f.requests).toHaveLength(2);
      expect(f.rejections()).toEqual([]);
      const rec = await readRecord(h.db);
      expect(rec.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
      const works = await nextTurnWorks(f, h, anthropicArgs(f));
      // the earlier results were left out of that request to fit
      expect(f.requests.at(-1)!.rawBody).toContain(`${LEFT_OUT_PREFIX}the output of read`);
      return works;
    },
  );
});

const ROUNDS = 12;
const OPAQUE = 3 * MB;
/** generous: a Node process with SQLite idles near 100 MB, the record holds every body (36 MB)
 * and each round leaves a few copies of its 3 MB for the collector; measured here at ~230 MB
 * (Anthropic) and ~320 MB (Responses). Requests that grew by 3 MB a round, 36 MB by the last,
 * held several times over while encoded, sent and captured, took ~620 MB and ~870 MB. */
const RSS_LIMIT_MB = 480;
/** the bound on opaque bodies (a quarter of the window, at most 2 MB) and the rest of the request */
const REQUEST_LIMIT_BYTES = 2.5 * MB;

interface Seen {
  bytes: number;
  rejected?: string;
  /** the tool-loop rule of Anthropic thinking, as the real API holds it */
  thinkingRefused?: string;
}

describe("opaque bodies", () => {
  for (const shape of ["anthropic", "responses"] as const) {
    trap(
      `${shape}: ${ROUNDS} rounds of 3 MB ${shape === "anthropic" ? "thinking signatures" : "encrypted reasoning"}: every request stays under the bound and the process's memory is bounded`,
      `growing opaque bodies (${shape === "anthropic" ? "Anthropic signatures" : "Responses encrypted_content"})`,
      async (fig) => {
        const seen: Seen[] = [];
        // the fake lets each body go once answered: twelve growing requests would be ~1 GB here
        const f = await fake({
          onBody: (rec: RecordedRequest) => {
            const s: Seen = { bytes: Buffer.byteLength(rec.rawBody) };
            if (rec.rejected) s.rejected = rec.rejected;
            if (rec.shape === "anthropic" && rec.body) {
              const refused = toolLoopThinkingRefusal(rec.body as Record<string, unknown>);
              if (refused) s.thinkingRefused = refused;
            }
            seen.push(s);
            rec.rawBody = "";
            rec.body = undefined;
          },
        });
        const h = await home();
        await fs.writeFile(path.join(h.workspace, "notes.txt"), "the word is heron\n");
        const args =
          shape === "anthropic"
            ? [...anthropicArgs(f), "--permission", "auto", "--reasoning", "high"]
            : ["--provider", "openai", "--model", "gpt-5", "--base-url", f.openaiBase, "--permission", "auto", "--reasoning", "high"];
        if (shape === "responses") await writeConfig(h, { api: "responses" });
        const steps: Step[] = [];
        for (let i = 1; i <= ROUNDS; i++) steps.push({ reasoning: `Round ${i}: read the notes again.`, opaqueBytes: OPAQUE, toolCalls: [{ name: "read", input: { path: "notes.txt" } }] });
        f.script(...steps, { text: `Done after ${ROUNDS} rounds.` });

        const run = startCli(["-p", "read the notes until you are sure", ...args], h);
        const { r, peak } = await doneWithPeak(run);
        expect(r.stderr).not.toContain("albedo-tui:");
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(`Done after ${ROUNDS} rounds.\n`);
        expect(seen).toHaveLength(ROUNDS + 1);
        expect(seen.filter((s) => s.rejected || s.thinkingRefused)).toEqual([]);
        // every request under the bound: not one 3 MB body crossed again
        const largest = Math.max(...seen.map((s) => s.bytes));
        fig.detail = `largest request ${Math.ceil(largest / 1024)} kB, peak RSS ${Math.round(peak / 1024)} MB`;
        expect(largest).toBeLessThan(REQUEST_LIMIT_BYTES);
        expect(peak).toBeGreaterThan(0);
        expect(Math.round(peak / 1024)).toBeLessThan(RSS_LIMIT_MB);

        // the record keeps every body whole
        const rec: StoredRecord = await readRecord(h.db);
        const rounds = rec.messages.filter((m) => m.role === "assistant" && m.blocks.some((b) => b.type === "tool_use"));
        expect(rounds).toHaveLength(ROUNDS);
        for (const m of rounds) {
          const b = m.blocks.find((x) => x.type === "reasoning");
          expect(b?.type === "reasoning" && (b.opaque?.body.length ?? 0) > OPAQUE * 0.9).toBe(true);
        }
        return nextTurnWorks(f, h, args);
      },
      240_000,
    );
  }
});
