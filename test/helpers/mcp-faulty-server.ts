// A small MCP server built with the SDK that misbehaves on request, for the tests of
// src/extensions/: it crashes mid-call, hangs (at initialize or in a call), answers with
// something that is not a tool result, floods (with output, or with notifications between
// its answers), writes escape sequences, and can tell what it was given and how often its
// tool list was asked for. Run: node --import tsx test/helpers/mcp-faulty-server.ts [options]
//   --hang-initialize     never answer initialize (the process stays up)
//   --marker FILE         write FILE (holding the pid) as soon as the process starts
//   --instructions TEXT   the instructions initialize returns
//   --instructions-bytes N  instructions of N bytes (an initialize answer of any size)
//   --tool-prefix P       name every tool P + its name (collision tests)
//   --endless-tools       tools/list pages forever: each page one more tool with a
//                         20,000-character description, and a next cursor
//   --empty-pages         tools/list pages forever with no tools on them
//   --notify              also offer the tools `flood` (notifications between its answers),
//                         `ping-flood` (ping requests of its own, each asking for an answer),
//                         `stop-reading` (it reads nothing more of its stdin)
//                         and `stats` (how often its tool list was asked for, how many of its
//                         pings were answered)
//   --http                serve Streamable HTTP (stateless) on a free loopback port instead
//                         of stdio; prints "listening on URL" on stderr
//   --exit-at-start CODE  say so on stderr and exit with CODE before reading anything
//   --exit-on-list        exit (code 4) when asked for its tools (during the start)
//   --exit-on-relist      the tool "ok" says its tools changed first (list_changed), and
//                         the next tools/list after the first makes it exit (code 5)
import fs from "node:fs";
import { spawn } from "node:child_process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveStatelessHttp } from "./mcp-http-serve.js";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const marker = opt("--marker");
if (marker) fs.writeFileSync(marker, String(process.pid));
const prefix = opt("--tool-prefix") ?? "";
const exitAtStart = opt("--exit-at-start");
if (exitAtStart !== undefined) {
  process.stderr.write("exiting at start, on purpose\n");
  process.exit(Number(exitAtStart));
}

if (argv.includes("--hang-initialize")) {
  // reads stdin and never answers: a server stuck before initialize completes
  process.stdin.resume();
  setInterval(() => undefined, 60_000);
} else if (argv.includes("--http")) {
  // --notify answers as an event stream, so a call's notifications can come before it
  serveStatelessHttp(() => makeServer(), !argv.includes("--notify"));
} else {
  const transport = new StdioServerTransport();
  await makeServer().connect(transport);
  // the answers to ping-flood's pings are counted here: the SDK knows nothing of them
  const onmessage = transport.onmessage;
  transport.onmessage = (m) => {
    if ("id" in m && typeof m.id === "string" && m.id.startsWith("flood-") && !("method" in m)) pingsAnswered++;
    else onmessage?.(m);
  };
}

// kept across the HTTP mode's one server per request
let listed = 0;
/** answers that came back to ping-flood's pings */
let pingsAnswered = 0;
/** the tools each flood added */
const late: { name: string; description: string; inputSchema: { type: "object"; properties: Record<string, unknown>; required: string[] } }[] = [];

function makeServer(): Server {
  const size = opt("--instructions-bytes");
  const instructions = size ? "i".repeat(Number(size)) : opt("--instructions");
  // it announces changes to its tool list, so that a flood of them is read as changes
  // (and, with --notify, the logging and resource changes it floods with)
  const notifying = argv.includes("--notify") ? { logging: {}, resources: { listChanged: true } } : {};
  const server = new Server({ name: "faulty", version: "1.0.0" }, { capabilities: { tools: { listChanged: true }, ...notifying }, ...(instructions ? { instructions } : {}) });
  const obj = (props: Record<string, unknown> = {}, required: string[] = []) => ({ type: "object" as const, properties: props, required });
  const tools = [
    { name: "ok", description: "answers ok", inputSchema: obj() },
    { name: "crash", description: "exits mid-call", inputSchema: obj() },
    { name: "hang", description: "never answers; writes `cancelled` (a path) when the client cancels the call", inputSchema: obj({ cancelled: { type: "string" } }) },
    { name: "invalid", description: "answers with something that is not a tool result", inputSchema: obj() },
    { name: "huge", description: "answers with `bytes` of text", inputSchema: obj({ bytes: { type: "number" } }, ["bytes"]) },
    { name: "escapes", description: "answers with terminal escape sequences", inputSchema: obj() },
    { name: "env", description: "answers with the value of an environment variable", inputSchema: obj({ name: { type: "string" } }, ["name"]) },
    { name: "mixed", description: "text, a resource, a resource link, audio, a bad image", inputSchema: obj() },
    { name: "fail", description: "answers isError", inputSchema: obj() },
    { name: "wrapped-image", description: "a 1×1 PNG whose base64 is wrapped in lines (valid to the SDK)", inputSchema: obj() },
    { name: "broken-images", description: "a truncated PNG, a 0×0 GIF and a corrupt JPEG, each declared as itself, and one whole PNG", inputSchema: obj() },
    { name: "lone-surrogate", description: "text holding lone surrogates (\\ud800, \\udc00)", inputSchema: obj() },
    { name: "spawn-child", description: "starts a long sleep in the background and gives its pid", inputSchema: obj() },
    { name: "weird name/with.dots", description: "a name providers refuse", inputSchema: obj() },
    ...(argv.includes("--notify")
      ? [
          {
            name: "flood",
            description: "writes `count` notifications (tools/list_changed and others) in `pulses` bursts `gapMs` apart, then adds a tool (late1, late2, … one more each time), announces it, and answers",
            inputSchema: obj({ count: { type: "number" }, pulses: { type: "number" }, gapMs: { type: "number" } }, ["count"]),
          },
          { name: "stop-reading", description: "answers, then reads nothing more of its stdin (the pipe to it fills)", inputSchema: obj() },
          { name: "ping-flood", description: "writes `count` ping requests of its own at once (each one the client answers), then answers", inputSchema: obj({ count: { type: "number" } }, ["count"]) },
          { name: "stats", description: "answers how many tools/list requests it has had and how many of its pings were answered, as JSON", inputSchema: obj() },
        ]
      : []),
  ].map((t) => ({ ...t, name: prefix + t.name }));

  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    listed++;
    if (argv.includes("--exit-on-list") || (argv.includes("--exit-on-relist") && listed > 1)) process.exit(argv.includes("--exit-on-list") ? 4 : 5);
    const page = Number(req.params?.cursor ?? "0");
    if (argv.includes("--empty-pages")) return { tools: [], nextCursor: String(page + 1) };
    if (argv.includes("--endless-tools")) {
      const t = { name: `t${page}`, description: `tool ${page} ` + "d".repeat(20_000), inputSchema: obj() };
      return { tools: page === 0 ? [...tools, t] : [t], nextCursor: String(page + 1) };
    }
    return { tools: [...tools, ...late] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name.slice(prefix.length);
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    switch (name) {
      case "ok":
        if (argv.includes("--exit-on-relist")) await server.sendToolListChanged();
        return { content: [{ type: "text", text: `ok from ${name}` }] };
      case "weird name/with.dots":
        return { content: [{ type: "text", text: `ok from ${name}` }] };
      case "stop-reading":
        setTimeout(() => process.stdin.pause(), 20);
        // a paused stdin no longer keeps the process up
        setInterval(() => undefined, 60_000);
        return { content: [{ type: "text", text: "reading no more" }] };
      case "crash":
        setTimeout(() => process.exit(3), 20);
        return new Promise(() => undefined);
      case "hang": {
        const file = args.cancelled;
        // the SDK aborts this signal when notifications/cancelled arrives for the request
        if (typeof file === "string") extra.signal.addEventListener("abort", () => fs.writeFileSync(file, "cancelled"));
        return new Promise(() => undefined);
      }
      case "invalid":
        return { content: "this is not a list of content items", isError: "maybe" } as never;
      case "huge": {
        const n = Number(args.bytes);
        return { content: [{ type: "text", text: "head-of-output\n" + "x".repeat(n) + "\ntail-of-output" }] };
      }
      case "escapes":
        return { content: [{ type: "text", text: "before\u001b[2J\u001b[31mred\u001b[0m\u001b]52;c;cGF3bmVk\u0007\u001b]0;title\u0007\rafter\u009b6n end" }] };
      case "env":
        return { content: [{ type: "text", text: `value=${process.env[String(args.name)] ?? "(unset)"}` }] };
      case "mixed":
        return {
          content: [
            { type: "text", text: "the text part" },
            { type: "resource", resource: { uri: "file:///tmp/notes.txt", mimeType: "text/plain", text: "resource body" } },
            { type: "resource_link", uri: "https://example.invalid/doc", name: "doc" },
            { type: "audio", data: Buffer.from("not really audio").toString("base64"), mimeType: "audio/wav" },
            { type: "image", data: Buffer.from("not an image at all").toString("base64"), mimeType: "image/png" },
          ],
        };
      case "fail":
        return { content: [{ type: "text", text: "it went wrong on purpose" }], isError: true };

      case "broken-images": {
        // loaded here: the decoders would slow every start (the start tests time it)
        const { corruptJpeg, pngImage, truncatedPng, zeroGif } = await import("./images.js");
        return {
          content: [
            { type: "image", data: truncatedPng().toString("base64"), mimeType: "image/png" },
            { type: "image", data: zeroGif().toString("base64"), mimeType: "image/gif" },
            { type: "image", data: corruptJpeg().toString("base64"), mimeType: "image/jpeg" },
            { type: "image", data: pngImage(4, 4).toString("base64"), mimeType: "image/png" },
          ],
        };
      }
      case "lone-surrogate":
        return { content: [{ type: "text", text: "before \ud800 middle \udc00 after" }] };
      case "wrapped-image": {
        // as Python's base64.encodebytes writes it: lines with breaks, which atob (the SDK's
        // check) accepts and a provider does not
        const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        return { content: [{ type: "image", data: png.replace(/(.{20})/g, "$1\n"), mimeType: "image/png" }] };
      }
      case "flood": {
        const count = Number(args.count);
        const pulses = Math.max(1, Number(args.pulses ?? 1));
        const gap = Number(args.gapMs ?? 0);
        const kinds = [
          { method: "notifications/tools/list_changed" },
          { method: "notifications/message", params: { level: "info", data: "flooding" } },
          { method: "notifications/tools/list_changed" },
          { method: "notifications/resources/list_changed" },
          { method: "notifications/whatever", params: { n: 1 } },
        ];
        const lines = kinds.map((n) => JSON.stringify({ jsonrpc: "2.0", ...n }) + "\n");
        const overHttp = argv.includes("--http");
        const t0 = Date.now();
        for (let p = 0; p < pulses; p++) {
          // on a fixed schedule, so a slow pulse does not stretch the flood
          const wait = t0 + p * gap - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const n = Math.floor(count / pulses) + (p < count % pulses ? 1 : 0);
          if (overHttp) {
            // on the call's own event stream, before its answer
            for (let i = 0; i < n; i++) await extra.sendNotification(kinds[i % kinds.length] as never);
            continue;
          }
          let text = "";
          for (let i = 0; i < n; i++) text += lines[i % lines.length];
          // written past the SDK, as fast as the pipe takes it, between its answers
          await new Promise<void>((r) => process.stdout.write(text, () => r()));
        }
        late.push({ name: `${prefix}late${late.length + 1}`, description: "added by a flood", inputSchema: obj() });
        if (overHttp) await extra.sendNotification({ method: "notifications/tools/list_changed" });
        else await server.sendToolListChanged();
        return { content: [{ type: "text", text: `flooded ${count} in ${Date.now() - t0} ms` }] };
      }
      case "ping-flood": {
        const count = Number(args.count);
        let text = "";
        for (let i = 0; i < count; i++) text += JSON.stringify({ jsonrpc: "2.0", id: `flood-${i}`, method: "ping" }) + "\n";
        const t0 = Date.now();
        // past the SDK, as fast as the pipe takes it
        await new Promise<void>((r) => process.stdout.write(text, () => r()));
        return { content: [{ type: "text", text: `flooded ${count} pings in ${Date.now() - t0} ms` }] };
      }
      case "stats":
        return { content: [{ type: "text", text: JSON.stringify({ listed, pingsAnswered }) }] };
      case "spawn-child": {
        const child = spawn("sleep", ["1000"], { stdio: "ignore" });
        child.unref();
        return { content: [{ type: "text", text: String(child.pid) }] };
      }
      default:
        return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
    }
  });
  return server;
}
