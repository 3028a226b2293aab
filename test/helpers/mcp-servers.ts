// The MCP servers the tests start: the reference servers installed as dev dependencies
// (run with this node, never npx over the network) and our own (mcp-faulty-server.ts,
// mcp-echo-server.ts).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ExtensionManager, type ManagerOptions } from "../../src/extensions/manager.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = path.join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const FAULTY = path.join(ROOT, "test/helpers/mcp-faulty-server.ts");
export const ECHO = path.join(ROOT, "test/helpers/mcp-echo-server.ts");
const TSX = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** an mcpServers entry for server-everything over stdio */
export function everythingStdio(): { command: string; args: string[] } {
  return { command: process.execPath, args: [EVERYTHING, "stdio"] };
}

/** an mcpServers entry for server-filesystem, allowed one folder */
export function filesystemStdio(dir: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [FILESYSTEM, dir] };
}

/** an mcpServers entry for the faulty server, in a mode (see mcp-faulty-server.ts) */
export function faultyStdio(...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", TSX, FAULTY, ...args] };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** server-everything over Streamable HTTP on a free loopback port; resolves once it listens */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      err += d.toString();
      if (err.includes(`listening on port ${port}`)) resolve();
    };
    child.stderr!.on("data", onData);
    child.stdout!.resume();
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** the faulty server over Streamable HTTP (stateless) on a free loopback port, in a mode */
export async function startFaultyHttp(...args: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = spawnHttpServer(FAULTY, "faulty", args);
  return { url: await server.url, close: server.close };
}

/**
 * One of our test servers (mcp-faulty-server.ts, mcp-echo-server.ts) started with --http:
 * `url` is what it says it listens on, `close` kills it. `close` is there at once, so a
 * caller can register it before the server is up.
 */
export function spawnHttpServer(script: string, name: string, args: string[] = []): { url: Promise<string>; close(): Promise<void> } {
  const child = spawn(process.execPath, ["--import", TSX, script, "--http", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the ${name} server exited (${code}): ${err}`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** a manager over a config file, with its notices and changes collected */
export function managerFor(opts: Partial<ManagerOptions> & { workspace: string; configFile?: string }): {
  m: ExtensionManager;
  notices: string[];
  changes: string[];
} {
  const notices: string[] = [];
  const changes: string[] = [];
  const m = new ExtensionManager({
    headless: true,
    onChange: (r) => changes.push(r),
    onNotice: (level, text) => notices.push(`${level}: ${text}`),
    redact: (t) => t,
    ...opts,
  });
  m.configure();
  return { m, notices, changes };
}

/** whether a process is alive (not a zombie) */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}
