// kill -9 in the middle of appends leaves a history that loads, with every message the
// writer saw committed intact (docs/architecture.md, Design rules).
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { openStore } from "../../src/session/store/store.js";
import { blocksFor } from "../helpers/append-loop.js";
import { tempDir } from "../helpers/tmp.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(root, "test/helpers/append-loop.ts");

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

it("keeps every committed message when the writer is SIGKILLed mid-loop", async () => {
  dir = await tempDir("albedo-kill-");
  const dbPath = path.join(dir, "history.sqlite");
  const child = spawn(process.execPath, ["--import", "tsx", script, dbPath], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });

  let sessionId: string | undefined;
  const printed: number[] = [];
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));

  await new Promise<void>((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const s = /^session (\w+)$/.exec(line);
        if (s) sessionId = s[1];
        const q = /^seq (\d+)$/.exec(line);
        if (q) printed.push(Number(q[1]));
      }
      // kill once well into the loop; the exact moment within a write is left to chance
      if (printed.length >= 25 && child.exitCode === null && !child.killed) {
        child.kill("SIGKILL");
        resolve();
      }
    });
    child.on("exit", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`writer exited early (code ${code}): ${stderr}`));
    });
  });
  await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode ? resolve() : child.on("exit", () => resolve())));

  expect(sessionId).toBeDefined();
  expect(printed.length).toBeGreaterThanOrEqual(25);

  const store = await openStore(dbPath);
  try {
    const h = await store.loadHistory(sessionId!);
    expect(h.bad).toEqual([]);
    const bySeq = new Map(h.messages.map((m) => [m.seq, m]));
    for (const seq of printed) {
      const m = bySeq.get(seq);
      expect(m, `seq ${seq}`).toBeDefined();
      expect(m!.status).toBe("complete");
      expect(m!.blocks).toEqual(blocksFor(seq));
    }
    // seqs are contiguous; at most the one in flight at the kill is beyond what was printed
    expect(h.messages.map((m) => m.seq)).toEqual(h.messages.map((_, i) => i + 1));
    expect(h.messages.length - printed.length).toBeLessThanOrEqual(1);
    // and the database still takes writes
    const next = await store.appendMessage(sessionId!, { role: "user", blocks: [{ type: "text", text: "after" }], status: "complete" });
    expect(next.seq).toBe(h.messages.length + 1);
  } finally {
    await store.close();
  }
});
