// The streaming floor: bare Node doing the least a streaming client can. When Enter arrives
// it POSTs the same kind of request to the same fake provider over undici (loaded before
// Enter, as any client would have it), reads the SSE stream, parses each event's JSON and
// writes each text delta to the terminal the moment it is parsed. Same pty, same harness as
// albedo-tui: what albedo-tui takes above this is its own.
//
//   node bench/floor-stream.cjs <base url> <key> <model>
"use strict";
const { request } = require("undici");

const [base, key, model] = process.argv.slice(2);
if (!base || !key || !model) {
  process.stderr.write("usage: floor-stream.cjs <base url> <key> <model>\n");
  process.exit(2);
}

async function stream() {
  const res = await request(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model, max_tokens: 32000, stream: true, messages: [{ role: "user", content: "say it" }] }),
  });
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${await res.body.text()}`);
  res.body.setEncoding("utf8");
  let buf = "";
  for await (const chunk of res.body) {
    buf += chunk;
    let end;
    while ((end = buf.indexOf("\n\n")) !== -1) {
      const event = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const at = event.indexOf("data: ");
      if (at === -1) continue;
      const data = JSON.parse(event.slice(at + 6));
      if (data.type === "content_block_delta" && data.delta.type === "text_delta") process.stdout.write(data.delta.text);
    }
  }
  process.stdout.write("\r\n");
}

process.stdin.setRawMode(true);
process.stdin.on("data", (d) => {
  if (d.includes(0x03)) process.exit(0); // Ctrl-C
  if (d.includes(0x0d)) {
    stream().catch((e) => {
      process.stderr.write(`floor: ${e.message}\n`);
      process.exit(1);
    });
  }
});
// announce readiness, so the harness sends Enter only once stdin is in raw mode
process.stdout.write("floor ready\r\n");
