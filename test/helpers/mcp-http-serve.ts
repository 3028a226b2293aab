// Serves an MCP test server over Streamable HTTP, stateless, on a free loopback port, and
// prints "listening on URL" on stderr: the HTTP mode of the test servers in this folder.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** Each POST gets a server of its own from `makeServer` (initialize, then each call);
 * `enableJsonResponse` false answers as an event stream. */
export function serveStatelessHttp(makeServer: (req: http.IncomingMessage) => Server, enableJsonResponse: boolean): void {
  const web = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      void (async () => {
        const server = makeServer(req);
        const transport = new StreamableHTTPServerTransport({ enableJsonResponse }); // no sessionIdGenerator: stateless
        await server.connect(transport);
        const text = Buffer.concat(chunks).toString("utf8");
        await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
      })();
    });
  });
  web.listen(0, "127.0.0.1", () => {
    process.stderr.write(`listening on http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp\n`);
  });
}
