// The local API: read-only GETs over the store's inspector record, on loopback,
// behind a bearer token kept in a 0600 file (one per running instance, removed at exit).
// Nothing here writes to the store. Connections are capped well below the open-file limit,
// so a flood of them cannot starve the rest of the process of descriptors.
//
// Routes (GET only):
//   /health                                 {status, capabilities, version}
//   /sessions/:id/context                   {state: "pending", reason, since} or
//                                           {state: "current", meta, sections, numbering}
//   /sessions/:id/context/:section/:page    {section, page, pages, text, numbering}
// Section and page numbers here are zero-based, as specified (docs/architecture.md, Design
// rules): section 0 is the system prompt, page 0 a section's first page. Each body that
// holds them says so with `numbering: "zero-based"`. People's views (the screen, `context`
// text and its --section/--page flags) count the same sections and pages from 1.
//
// Status codes, in the order they are decided:
//   421 misdirected_request a Host header missing, repeated, or not this server's own address
//                           (127.0.0.1:PORT or localhost:PORT): a page whose name was rebound
//                           to 127.0.0.1 (DNS rebinding) sends its own name, and is refused
//                           before its token could count, a second wall behind the token
//   403 forbidden_origin    an Origin header that is not this server's own origin (a web page
//                           of another site; a person's curl sends none)
//   401 unauthorized        missing or wrong `Authorization: Bearer` (checked ahead of any route, so an
//                           unauthenticated caller learns nothing about routes or methods)
//   405 method_not_allowed  anything but GET (with `Allow: GET`)
//   404 not_found           unknown route, or a path holding "..", "." or an encoded slash
//   400 bad_session_id      session id not matching ^[A-Za-z0-9_-]{1,64}$ (an empty one, as in
//                           "/sessions//context", one only of blanks, or one holding control
//                           characters is named as such, the characters escaped)
//   400 bad_section/bad_page not a plain non-negative integer ("-1", "1.5", "1e3", "01", "abc")
//   404 no_such_session     no such session (an id, or a start of one of at least 4 characters;
//                           the open session not stored yet is answered as pending, and so is
//                           a new one another process has open, as open-marks.ts marks it)
//   404 ambiguous_session_id the start of several ids (the body names them in `matches`)
//   409 pending             the inspector is pending (body carries reason and since)
//   404 no_such_section / no_such_page
//   500 internal            the store failed (no details leave the process)
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import fs from "node:fs/promises";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import type { HistoryStore } from "../../session/store/types.js";
import { MACHINE_NUMBERING } from "../format.js";
import { sessionIdProblem } from "../../record/session-id.js";
import { findSession } from "../../session/store/find-session.js";
import { draftReason, findOpenDraft } from "../../session/store/open-marks.js";
import { NO_REQUEST_YET } from "../../session/store/captures.js";
import type { InspectorView } from "../types.js";

/** session_context: the inspector's record; extensions: requests may hold MCP servers' tools
 * and instructions (their sections are named by the server) */
const API_CAPABILITIES = ["session_context", "extensions"] as const;

interface ApiServerOptions {
  store: HistoryStore;
  /** 0 (the default) lets the system pick a free port */
  port?: number;
  /** where the token is written, mode 0600; a function gets the port, so that each running
   * instance has its own file (two instances must not overwrite one token) */
  tokenFile: string | ((port: number) => string);
  /** most connections open at once; more are closed as they arrive (default: apiConnectionCap()) */
  maxConnections?: number;
  /** reported by /health; defaults to package.json's version */
  version?: string;
  /** the session open in this process that has no row yet (before its first message): it is
   * answered as pending, not as unknown */
  unstored?: () => { id: string; since: string } | undefined;
}

export interface ApiServer {
  url: string;
  port: number;
  tokenFile: string;
  close(): Promise<void>;
}

/** The most connections the API keeps open at a time, at most. */
export const MAX_API_CONNECTIONS = 512;

/**
 * A quarter of this process's open-file limit, at most MAX_API_CONNECTIONS: every accepted
 * connection holds a descriptor, and a flood of them must leave enough for the store, the
 * provider and the pipes of tool commands (a spawn without descriptors fails with EMFILE).
 * Where the limit cannot be read (no /proc), 128, well below common defaults (256 on macOS).
 */
export function apiConnectionCap(): number {
  try {
    const limits = readFileSync("/proc/self/limits", "utf8");
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
    if (m?.[1] === "unlimited") return MAX_API_CONNECTIONS;
    if (m?.[1] !== undefined) return Math.max(8, Math.min(MAX_API_CONNECTIONS, Math.floor(Number(m[1]) / 4)));
  } catch {
    // not Linux
  }
  return 128;
}

const sessionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
// canonical decimal only: no sign, no leading zero, no exponent, no fraction; 15 digits
// stay inside Number's exact integers
const indexSchema = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,14})$/)
  .transform((s) => Number(s));

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function packageVersion(): string {
  // the bundle (dist/bundle/) sits two levels below the package root, src/context/api/ and
  // tsc's dist/context/api/ three: the first of the two that is this package's is it
  const req = createRequire(import.meta.url);
  for (const file of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = req(file) as { name?: unknown; version?: unknown };
      if (pkg.name === "albedo-tui") return typeof pkg.version === "string" ? pkg.version : "unknown";
    } catch {
      // not there: the next candidate
    }
  }
  return "unknown";
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

// Comparing digests keeps the comparison constant-time whatever length the caller sent.
function tokenMatches(header: string | undefined, expected: Buffer): boolean {
  if (typeof header !== "string") return false;
  const m = /^Bearer ([^\s]+)\s*$/i.exec(header);
  if (!m || m[1] === undefined) return false;
  return timingSafeEqual(digest(m[1]), expected);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(json)),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...headers,
  });
  res.end(json);
}

function sendError(res: ServerResponse, e: ApiError, headers: Record<string, string> = {}): void {
  send(res, e.status, { error: e.code, message: e.message, ...e.extra }, headers);
}

const notFound = (): ApiError => new ApiError(404, "not_found", "no such route");

/** Splits the path into decoded segments, refusing anything that smells of traversal. */
function segments(rawUrl: string): string[] {
  const q = rawUrl.indexOf("?");
  const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
  if (!rawPath.startsWith("/")) throw notFound();
  // "..", ".%2e", "%2e%2e" in any case: refused before any decoding can hide them
  if (/(?:\.|%2e)(?:\.|%2e)/i.test(rawPath)) throw notFound();
  const parts = rawPath.slice(1).split("/");
  return parts.map((p) => {
    let d: string;
    try {
      d = decodeURIComponent(p);
    } catch {
      throw notFound();
    }
    // a dot segment or an encoded slash never names a resource; an empty segment ("//") is
    // refused by route(): where an id goes ("/sessions//context", an unset $ID) as an empty id
    if (d === "." || d === ".." || d.includes("/") || d.includes("\\")) throw notFound();
    return d;
  });
}

function parseSessionId(s: string): string {
  const rule = "session id must be 1-64 of A-Z a-z 0-9 _ -";
  // empty, only whitespace or with control characters: the sentence names which (escaped)
  const problem = sessionIdProblem(s);
  if (problem) throw new ApiError(400, "bad_session_id", `${problem}; a ${rule}`);
  const r = sessionIdSchema.safeParse(s);
  if (!r.success) throw new ApiError(400, "bad_session_id", rule);
  return r.data;
}

function parseIndex(s: string, code: "bad_section" | "bad_page"): number {
  const r = indexSchema.safeParse(s);
  if (!r.success) {
    const what = code === "bad_section" ? "section" : "page";
    throw new ApiError(400, code, `${what} must be a non-negative integer written plainly (0, 1, 2, …)`);
  }
  return r.data;
}

/**
 * The Host values this server answers to: its own address under the names that reach it
 * (it listens on 127.0.0.1 only, so not [::1]). Names are compared in lower case.
 */
function ownHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

/** Refuses a request not addressed to this server by its own name, or sent by another site's page. */
function checkAddressed(req: IncomingMessage, hosts: Set<string>): void {
  const named = [...hosts].join(" or ");
  // node keeps only the first of repeated Host headers: the raw ones are counted
  const given = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "host").length;
  const host = req.headers.host;
  if (given === 0 || host === undefined) throw new ApiError(421, "misdirected_request", `the request has no Host header; this API answers only to Host ${named}`);
  if (given > 1) throw new ApiError(421, "misdirected_request", `the request has ${given} Host headers; send one, ${named}`);
  if (!hosts.has(host.toLowerCase())) throw new ApiError(421, "misdirected_request", `the Host header names another server; this API answers only to Host ${named}`);
  const origin = req.headers.origin;
  if (origin !== undefined && ![...hosts].some((h) => origin.toLowerCase() === `http://${h}`)) {
    throw new ApiError(403, "forbidden_origin", `requests from a web page of another origin are refused; this API's own origin is http://${[...hosts].join(" or http://")}`);
  }
}

/** the reason an open session without a row is pending */
export const UNSTORED_REASON = `${NO_REQUEST_YET}: the session is open in albedo-tui and is stored with its first message`;

/** The session the id (or a unique start of one) names: its full id, or the pending view of
 * the open session not stored yet. */
async function requireSession(store: HistoryStore, id: string, unstored: ApiServerOptions["unstored"]): Promise<string | InspectorView> {
  const draft = unstored?.();
  const f = await findSession(store, id);
  if (f.ok) return f.session.id;
  if (draft && (draft.id === id || (f.kind === "none" && draft.id.startsWith(id)))) {
    return { state: "pending", reason: UNSTORED_REASON, since: draft.since };
  }
  // a new session another process has open on its screen (open-marks.ts)
  const elsewhere = f.kind === "none" || f.kind === "short" ? findOpenDraft(store.path, id) : undefined;
  if (elsewhere) return { state: "pending", reason: draftReason(elsewhere), since: elsewhere.since };
  if (f.kind === "ambiguous") throw new ApiError(404, "ambiguous_session_id", f.problem, { matches: (f.matches ?? []).map((s) => s.id) });
  throw new ApiError(404, "no_such_session", f.kind === "short" ? f.problem : "no such session");
}

async function route(store: HistoryStore, version: string, segs: string[], unstored: ApiServerOptions["unstored"]): Promise<unknown> {
  if (segs.length === 1 && segs[0] === "health") {
    return { status: "ok", capabilities: [...API_CAPABILITIES], version };
  }
  if (segs[0] !== "sessions" || segs[2] !== "context" || (segs.length !== 3 && segs.length !== 5)) {
    throw notFound();
  }
  const given = parseSessionId(segs[1] ?? "");
  if (segs.length === 3) {
    const id = await requireSession(store, given, unstored);
    if (typeof id !== "string") return id;
    const view = await store.inspectorView(id);
    return view.state === "current" ? { ...view, numbering: MACHINE_NUMBERING } : view;
  }
  const section = parseIndex(segs[3] ?? "", "bad_section");
  const page = parseIndex(segs[4] ?? "", "bad_page");
  const id = await requireSession(store, given, unstored);
  const view = typeof id === "string" ? await store.inspectorView(id) : id;
  if (view.state === "pending") {
    throw new ApiError(409, "pending", "the inspector is pending until the next request is prepared", {
      reason: view.reason,
      since: view.since,
    });
  }
  const summary = view.sections[section];
  const zeroTo = (n: number): string => (n === 1 ? "0" : `0–${n - 1}`);
  if (!summary) {
    throw new ApiError(404, "no_such_section", `no section ${section}; sections are ${zeroTo(view.sections.length)} (zero-based)`);
  }
  const p = typeof id === "string" ? await store.capturePage(id, section, page) : undefined;
  if (!p) {
    // the summary was read a moment ago; a capture saved since may have changed the count
    throw new ApiError(404, "no_such_page", `no page ${page} in section ${section}; its pages are ${zeroTo(summary.pages)} (zero-based)`);
  }
  return { ...p, numbering: MACHINE_NUMBERING };
}

async function writeTokenFile(file: string, token: string): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // written beside the target and renamed over it: the file is 0600 from its first byte,
  // and a symlink planted at the target is replaced, not followed
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fh = await fs.open(tmp, "wx", 0o600);
  try {
    await fh.chmod(0o600); // the mode at creation is filtered by the umask
    await fh.writeFile(`${token}\n`, "utf8");
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fs.chmod(file, 0o600);
}

export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const { store } = opts;
  const version = opts.version ?? packageVersion();
  const token = randomBytes(32).toString("hex");
  const expected = digest(token);

  const server = createServer(
    {
      maxHeaderSize: 8 * 1024, // larger headers get 431 from node itself
      requestTimeout: 10_000, // whole request, against slow senders
      headersTimeout: 5_000,
      // node checks the two timeouts above only this often (30 s by default), so a half
      // request would otherwise hold its socket six times longer than headersTimeout says
      connectionsCheckingInterval: 1_000,
      keepAliveTimeout: 5_000,
      // a missing Host is refused by checkAddressed, with a JSON body like every refusal
      requireHostHeader: false,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      void handle(req, res);
    },
  );
  // past the cap node closes each new connection at once: the flood costs a descriptor for
  // a moment each, never all of them
  if (opts.maxConnections !== undefined && !(Number.isInteger(opts.maxConnections) && opts.maxConnections > 0)) {
    throw new Error(`maxConnections must be a positive integer (got ${opts.maxConnections})`);
  }
  server.maxConnections = opts.maxConnections ?? apiConnectionCap();
  server.maxHeadersCount = 64;
  server.maxRequestsPerSocket = 1000;
  server.setTimeout(30_000); // idle sockets are closed

  // the port is known once listening; until then no request is served
  let hosts = new Set<string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      checkAddressed(req, hosts);
      if (!tokenMatches(req.headers.authorization, expected)) {
        throw new ApiError(401, "unauthorized", "missing or wrong bearer token");
      }
      if (req.method !== "GET") {
        sendError(res, new ApiError(405, "method_not_allowed", "only GET is allowed"), { allow: "GET" });
        return;
      }
      const body = await route(store, version, segments(req.url ?? "/"), opts.unstored);
      send(res, 200, body);
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(500, "internal", "the request could not be served");
      if (!res.headersSent) sendError(res, err, err.status === 401 ? { "www-authenticate": "Bearer" } : {});
      else res.destroy();
    }
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once("error", onError);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = ownHosts(port);

  const shutdown = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  const tokenFile = typeof opts.tokenFile === "string" ? opts.tokenFile : opts.tokenFile(port);
  try {
    await writeTokenFile(tokenFile, token);
  } catch (e) {
    await shutdown();
    throw e;
  }

  // The token dies with the server; the file is left alone if another server replaced it.
  const removeTokenFile = (): void => {
    try {
      if (readFileSync(tokenFile, "utf8").trim() === token) rmSync(tokenFile, { force: true });
    } catch {
      // already gone
    }
  };
  // an exit that skips close() (process.exit after a fatal error, or a signal handler's
  // deadline) still removes it; only synchronous work runs there
  process.on("exit", removeTokenFile);

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    tokenFile,
    close(): Promise<void> {
      closed ??= (async () => {
        await shutdown();
        removeTokenFile();
        process.off("exit", removeTokenFile);
      })();
      return closed;
    },
  };
}
