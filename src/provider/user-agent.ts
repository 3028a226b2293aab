// The User-Agent every request to a provider carries (its messages, its model list, its
// token counts): "albedo-tui/<version>", so a provider or a gateway can tell the client.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let agent: string | undefined;

/** package.json is two folders up from this module in src/, from tsc's dist/provider/ and
 * from the bundle's dist/bundle/cli.cjs alike. */
function version(): string {
  try {
    const file = fileURLToPath(new URL("../../package.json", import.meta.url));
    const v = (JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version;
    return typeof v === "string" && /^[\w.+-]{1,40}$/.test(v) ? v : "unknown";
  } catch {
    return "unknown";
  }
}

export function userAgent(): string {
  return (agent ??= `albedo-tui/${version()}`);
}
