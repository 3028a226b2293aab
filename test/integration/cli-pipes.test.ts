// Commands that print, read by a reader that stops early (`| head -1`): a closed stdout is a
// normal end, exit 0 and no stack trace, as for any Unix tool.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { CLI, makeHome, type Home } from "../helpers/cli.js";
import { openStore } from "../../src/session/store/store.js";

let home: Home;
let sessionId = "";

beforeAll(async () => {
  home = await makeHome();
  const store = await openStore(home.db);
  try {
    // far more than a pipe's buffer holds, so the writer meets the closed pipe
    for (let i = 0; i < 1500; i++) {
      const s = await store.createSession({ workspace: home.workspace, title: `session number ${i} with a title long enough to fill the pipe` });
      await store.appendMessage(s.id, { role: "user", blocks: [{ type: "text", text: `prompt ${i}` }], status: "complete" });
      sessionId = s.id;
    }
    await store.appendMessage(sessionId, { role: "assistant", blocks: [{ type: "text", text: "line of the answer\n".repeat(40_000) }], status: "complete" });
  } finally {
    await store.close();
  }
}, 120_000);
afterAll(async () => {
  const fs = await import("node:fs/promises");
  await fs.rm(home.root, { recursive: true, force: true });
});

/** Runs `albedo-tui ARGS | head -n 1` in bash; returns albedo-tui's own exit status and stderr. */
function throughHead(args: string[]): Promise<{ status: number; stderr: string; first: string }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `${quoted} 2>"$ERRFILE" | head -n 1; echo "status=\${PIPESTATUS[0]}"; cat "$ERRFILE"`], {
      env: { ...home.env, ERRFILE: `${home.root}/stderr.txt` },
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("close", () => {
      const [first = "", statusLine = "", ...rest] = out.split("\n");
      resolve({ first, status: Number(statusLine.replace("status=", "")), stderr: rest.join("\n") });
    });
  });
}

describe("a reader that stops early", () => {
  for (const args of [
    ["sessions"],
    ["sessions", "--json"],
    ["export", "SESSION"],
    ["export", "SESSION", "--format", "json"],
  ]) {
    it(`albedo-tui ${args.join(" ")} | head -1 ends with exit 0 and no trace`, async () => {
      const r = await throughHead([...args.map((a) => (a === "SESSION" ? sessionId : a)), "--db", home.db]);
      expect(r.first.length).toBeGreaterThan(0);
      expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
      expect(r.status).toBe(0);
    }, 60_000);
  }
});
