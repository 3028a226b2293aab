// The fake provider (test/helpers/fake-provider.ts) as the stream benchmark runs it: in a
// process of its own, speaking real SSE over loopback, one event per word. It prints its URL,
// then one line per request the moment the request's headers arrive:
//   arrived <epoch ms>
// (performance.timeOrigin + performance.now(), comparable across processes on one machine to
// well under a millisecond), so the benchmark can time Enter → request at the provider for
// albedo-tui and for the floor alike.
//
//   node --import tsx bench/fake-server.ts --key K --script steps.json
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { startFakeProvider, type Step } from "../test/helpers/fake-provider.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const scriptFile = arg("--script");
  if (!scriptFile) throw new Error("--script <steps.json> is required");
  const steps = JSON.parse(fs.readFileSync(scriptFile, "utf8")) as unknown;
  if (!Array.isArray(steps)) throw new Error(`${scriptFile}: expected a JSON array of steps`);
  const key = arg("--key");
  const fake = await startFakeProvider({
    ...(key !== undefined ? { key } : {}),
    repeat: true,
    // the turn's request only: the model list (GET) read before it is not what Enter sent
    onRequest: (req) => void (req.method === "POST" && process.stdout.write(`arrived ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`)),
  });
  fake.script(...(steps as Step[]));
  process.stdout.write(`${fake.url}\n`);
  const stop = (): void => void fake.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`fake server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
