// Child process for the kill test: appends messages the way a turn does (an interrupted
// checkpoint, updated in place, then completed) and prints each seq once it is committed.
// Usage: node --import tsx test/helpers/append-loop.ts DB_PATH
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../../src/session/store/store.js";
import type { Block } from "../../src/record/types.js";

/** The final blocks of message `seq`; the test rebuilds them to check what it reads back. */
export function blocksFor(seq: number): Block[] {
  return [
    { type: "reasoning", text: `thinking about ${seq}`, opaque: { kind: "sig", body: `sig-${seq}` } },
    // large enough that a kill often lands inside a write
    { type: "text", text: `answer ${seq} `.repeat(4000) },
    { type: "tool_use", id: `call_${seq}`, name: "read_file", input: { path: `f${seq}.ts` } },
  ];
}

async function main(): Promise<void> {
  const dbPath = process.argv[2];
  if (!dbPath) throw new Error("usage: append-loop.ts DB_PATH");
  const store = await openStore(dbPath);
  const session = await store.createSession({ workspace: "/kill-test" });
  process.stdout.write(`session ${session.id}\n`);
  for (;;) {
    const m = await store.appendMessage(session.id, {
      role: "assistant",
      blocks: [{ type: "text", text: "partial" }],
      status: "interrupted",
      model: "loop-model",
    });
    await store.updateMessage(m.id, [{ type: "text", text: "partial, longer" }], "interrupted");
    await store.updateMessage(m.id, blocksFor(m.seq), "complete");
    process.stdout.write(`seq ${m.seq}\n`);
  }
}

// Only run when executed, so the test can import blocksFor.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
