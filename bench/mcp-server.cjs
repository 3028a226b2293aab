// A bare MCP server over stdio for the MCP wire benchmarks (bench/mcp.ts): newline-delimited
// JSON-RPC with no SDK, so what it costs to write is the same whoever reads it. It answers
// initialize (announcing tools/list_changed), tools/list and ping, and two tools:
//   big    answers with a message of about --big BYTES (source-like text), serialized at start
//   flood  writes `count` notifications in one write (two in five tools/list_changed, the
//          rest logging and others), then its answer
// It counts the tools/list requests it gets; the `stats` tool answers that count.
//
//   node bench/mcp-server.cjs --big 15728640
"use strict";

const argv = process.argv.slice(2);
const bigAt = argv.indexOf("--big");
const bigBytes = bigAt >= 0 ? Number(argv[bigAt + 1]) : 1024;
// the answer but for its id, ready before anyone asks: source-like text, so the JSON has
// escapes (quotes, newlines, tabs) and characters beyond ASCII as a file's contents would
const block = 'export function greet(name) {\n\tconst s = "héllo, " + name; // “quoted” ✓\n\treturn s;\n}\n';
// as many blocks as make the whole message `bigBytes` long, escapes and UTF-8 included
const bigText = block.repeat(Math.floor(bigBytes / (Buffer.byteLength(JSON.stringify(block)) - 2)));
const bigTail = Buffer.from(`,"result":${JSON.stringify({ content: [{ type: "text", text: bigText }] })}}\n`);
const kinds = [
  { method: "notifications/tools/list_changed" },
  { method: "notifications/message", params: { level: "info", data: "flooding" } },
  { method: "notifications/tools/list_changed" },
  { method: "notifications/resources/list_changed" },
  { method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
].map((n) => JSON.stringify({ jsonrpc: "2.0", ...n }) + "\n");
let listed = 0;

function answer(id, result) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
}

function handle(msg) {
  if (msg.id === undefined) return;
  switch (msg.method) {
    case "initialize":
      return answer(msg.id, { protocolVersion: msg.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: "bench", version: "1.0.0" } });
    case "ping":
      return answer(msg.id, {});
    case "tools/list":
      listed++;
      return answer(msg.id, { tools: ["big", "flood", "stats"].map((name) => ({ name, description: name, inputSchema: { type: "object" } })) });
    case "tools/call": {
      const name = msg.params.name;
      if (name === "big") {
        process.stdout.write(Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)}`), bigTail]));
        return;
      }
      if (name === "flood") {
        const count = Number(msg.params.arguments.count);
        let text = "";
        for (let i = 0; i < count; i++) text += kinds[i % kinds.length];
        process.stdout.write(text);
        return answer(msg.id, { content: [{ type: "text", text: `flooded ${count}` }] });
      }
      if (name === "stats") return answer(msg.id, { content: [{ type: "text", text: JSON.stringify({ listed }) }] });
      return answer(msg.id, { content: [{ type: "text", text: `no tool ${name}` }], isError: true });
    }
    default:
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } }) + "\n");
  }
}

let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf("\n")) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));
