// Which MCP servers a run has: "mcpServers" in the config file and in the workspace's
// .mcp.json (same shape), normalized into ServerSpecs. `${VAR}` (and `${VAR:-default}`) in
// any string is read from the environment. What of an entry is a secret (every expanded
// value, headers, credential-named env entries and flags) is config/secrets.ts's rule; the
// secrets are kept only in memory and handed to the redactor, never shown. Before a project's
// file is approved, /mcp shows its text (`launch`, `${VAR}` unexpanded) in full: the person
// approving must see what would run.
import type { CommandSandbox } from "../tools/spawn-command.js";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { loadConfig, mcpServerSchema, type McpServerConfig } from "../config/config.js";
import { decodeUtf8, jsonSyntaxProblem, readWorkspaceFileSync, StartFileError } from "../config/files.js";
import { messageOf } from "../record/errors.js";
import { credentialName, secretsAmong } from "../config/secrets.js";

/** The project file, beside the code: it can run commands, so it waits for approval. */
export const PROJECT_FILE = ".mcp.json";

const DEFAULT_STARTUP_MS = 30_000;
const DEFAULT_TOOL_MS = 120_000;

type Transport =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string; sandboxed?: boolean; sandbox?: CommandSandbox }
  | { kind: "http"; url: string; headers: Record<string, string> };

export interface ServerSpec {
  name: string;
  /** "config": the user's own file; "project": the workspace's .mcp.json (needs approval) */
  origin: "config" | "project";
  /** the file that declares it */
  file: string;
  disabled: boolean;
  /** set when the entry cannot be used: it is listed with this sentence and never started */
  problem?: string;
  transport?: Transport;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** names of the env variables and headers it is given (for its status; values never) */
  envNames: string[];
  headerNames: string[];
  /** what starts it as the file writes it (`${VAR}` unexpanded, so no value of the
   * environment): shown in full before approving */
  launch: LaunchText;
  /** what of it is a secret (config/secrets.ts), expanded: cut out of everything once it may start */
  secrets: string[];
  /** a hash of everything that starts it (secrets included, kept in memory only): /reload
   * restarts a server whose fingerprint changed */
  fingerprint: string;
}

/** Every field of an entry that decides what starts, as the file writes it. */
interface LaunchText {
  command?: string;
  args: string[];
  /** as written; undefined: the workspace */
  cwd?: string;
  env: [string, string][];
  url?: string;
  headers: [string, string][];
}

export interface ExtensionConfig {
  servers: ServerSpec[];
  /** every server's secrets: cut out of everything stored, sent or shown */
  secrets: string[];
  /** tool names that may run in read-only mode (exact, or "mcp__server__*") */
  allowInReadOnly: string[];
  /** the project file when it exists: its path and the sha256 of its bytes */
  project?: { file: string; sha256: string };
  /** problems with a whole file (unreadable, not JSON), to be said once */
  problems: string[];
}

const projectFileSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) }).loose();

/** `${VAR}` and `${VAR:-default}`; a variable that is not set is a problem named by where it
 * was. `onValue` gets each value read from the environment and its variable's name (a default
 * is the file's own text). */
export function expandVars(value: string, env: NodeJS.ProcessEnv, where: string, onValue?: (v: string, name: string) => void): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, dflt: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== "") {
      onValue?.(v, name);
      return v;
    }
    if (dflt !== undefined) return dflt;
    throw new Error(`${where} names \${${name}}, which is not set in the environment`);
  });
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((iss) => {
      if (iss.code === "unrecognized_keys") return `unknown field${iss.keys.length > 1 ? "s" : ""} ${iss.keys.map((k) => `"${k}"`).join(", ")}`;
      const field = iss.path.length > 0 ? `field "${iss.path.join(".")}": ` : "";
      return `${field}${iss.message}`;
    })
    .join("; ");
}

function hash(v: unknown): string {
  return crypto.createHash("sha256").update(JSON.stringify(v)).digest("hex");
}

interface EntryPlace {
  origin: ServerSpec["origin"];
  file: string;
  workspace: string;
  /** env names the user's config marks as secrets ("mcpSecretEnv") */
  secretEnv?: readonly string[];
}

/** The arguments that follow (or are part of) a flag named like a credential: "--token X",
 * "--api-key=X". Argv is readable by local users (/proc), but a server may echo it. */
function flagValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const [i, a] of args.entries()) {
    const m = /^--?([A-Za-z][A-Za-z0-9_.-]*)(?:=([\s\S]*))?$/.exec(a);
    if (!m || !credentialName(m[1]!)) continue;
    const v = m[2] ?? args[i + 1];
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** One entry of mcpServers as a spec; never throws: a bad entry carries its problem. Its
 * secrets (config/secrets.ts: the candidates of normalizeEntry that pass the rule) are the
 * spec's own and are added to `secrets`. */
function normalizeServer(name: string, raw: unknown, where: EntryPlace, env: NodeJS.ProcessEnv, secrets: string[]): ServerSpec {
  const candidates: string[] = [];
  const expanded: string[] = [];
  const spec = normalizeEntry(name, raw, where, env, candidates, expanded);
  const fromProject = where.origin === "project";
  spec.secrets = secretsAmong(candidates, { workspace: where.workspace, ...(env.HOME ? { home: env.HOME } : {}), exists: (p) => fs.existsSync(p), fromProject }, expanded);
  secrets.push(...spec.secrets);
  return spec;
}

/** `secrets` collects the candidates: header values, env values of credential names (or names
 * marked secret), credential flags' arguments, a URL's credentials and query values;
 * `expanded` the values read from the environment that count whole (see `x` below); a
 * project's file reading a variable not named like a credential adds a candidate instead. */
function normalizeEntry(name: string, raw: unknown, where: EntryPlace, env: NodeJS.ProcessEnv, secrets: string[], expanded: string[]): ServerSpec {
  const base: ServerSpec = {
    name,
    origin: where.origin,
    file: where.file,
    disabled: false,
    startupTimeoutMs: DEFAULT_STARTUP_MS,
    toolTimeoutMs: DEFAULT_TOOL_MS,
    envNames: [],
    headerNames: [],
    launch: { args: [], env: [], headers: [] },
    secrets: [],
    fingerprint: "",
  };
  const bad = (problem: string): ServerSpec => ({ ...base, problem: `${where.file}: mcpServers.${name}: ${problem}`, fingerprint: hash(["bad", problem]) });
  if (!/^[A-Za-z0-9_.-]{1,40}$/.test(name)) return bad("a server's name must be 1 to 40 of A-Z a-z 0-9 _ . - (it becomes part of its tools' names)");
  const parsed = mcpServerSchema.safeParse(raw);
  if (!parsed.success) return bad(describeIssues(parsed.error.issues));
  const c: McpServerConfig = parsed.data;
  base.disabled = c.disabled === true;
  if (c.startupTimeoutSeconds !== undefined) base.startupTimeoutMs = c.startupTimeoutSeconds * 1000;
  if (c.toolTimeoutSeconds !== undefined) base.toolTimeoutMs = c.toolTimeoutSeconds * 1000;
  base.launch = {
    ...(c.command !== undefined ? { command: c.command } : {}),
    args: c.args ?? [],
    ...(c.cwd !== undefined ? { cwd: c.cwd } : {}),
    env: Object.entries(c.env ?? {}),
    ...(c.url !== undefined ? { url: c.url } : {}),
    headers: Object.entries(c.headers ?? {}),
  };
  base.envNames = Object.keys(c.env ?? {});
  base.headerNames = Object.keys(c.headers ?? {});
  if (c.type === "sse") return bad('"type": "sse" (the old HTTP+SSE transport) is not supported; use the server\'s Streamable HTTP endpoint ("url")');
  if (c.command !== undefined && c.url !== undefined) return bad('give "command" (a stdio server) or "url" (Streamable HTTP), not both');
  if (c.command === undefined && c.url === undefined) return bad('needs "command" (a stdio server) or "url" (Streamable HTTP)');
  if (c.type === "stdio" && c.command === undefined) return bad('"type": "stdio" needs "command"');
  if ((c.type === "http" || c.type === "streamable-http") && c.url === undefined) return bad(`"type": "${c.type}" needs "url"`);
  const unfit = unfitField(c);
  if (unfit) return bad(unfit);
  try {
    // every value read from the environment is a candidate, wherever it is expanded; whole
    // (whatever its shape) when the user's own file reads it, or a project's reads a variable
    // named like a credential: a project's file choosing ${TERM} must not blank "xterm-256color"
    const x = (v: string, field: string): string =>
      expandVars(v, env, `field "${field}"`, (value, name) => (where.origin === "config" || credentialName(name) || where.secretEnv?.includes(name) ? expanded : secrets).push(value));
    if (c.command !== undefined) {
      if (c.headers !== undefined) return bad('"headers" go with "url"; a stdio server takes "env"');
      const envOut: Record<string, string> = {};
      for (const [k, v] of Object.entries(c.env ?? {})) {
        envOut[k] = x(v, `env.${k}`);
        if (credentialName(k) || where.secretEnv?.includes(k)) secrets.push(envOut[k]);
        // a URL's password or token is a secret whatever the variable's name
        else if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(envOut[k])) secrets.push(...urlCredentials(envOut[k]));
      }
      const cwd = c.cwd !== undefined ? path.resolve(where.workspace, x(c.cwd, "cwd")) : where.workspace;
      const args = (c.args ?? []).map((a, i) => x(a, `args.${i}`));
      secrets.push(...flagValues(args));
      const transport: Transport = { kind: "stdio", command: x(c.command, "command"), args, env: envOut, cwd, ...(c.sandbox === true ? { sandboxed: true } : {}) };
      return { ...base, transport, fingerprint: hash([transport, base.startupTimeoutMs, base.toolTimeoutMs, base.disabled]) };
    }
    if (c.env !== undefined || c.args !== undefined || c.cwd !== undefined) return bad('"env", "args" and "cwd" go with "command"; a Streamable HTTP server takes "headers"');
    const url = x(c.url!, "url");
    // the sentences name the URL by its scheme at most: the rest may hold a credential (a
    // query token, a password), which an entry refused here never hands to the redactor
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return bad('"url" is not a URL (one starts with "http://" or "https://")');
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") return bad(`"url" must be http(s) (${writtenScheme(c.url!)})`);
    // fetch refuses such a URL, and a password in it would be shown and stored as text
    if (u.username !== "" || u.password !== "") return bad('"url" holds a user name or password (user:password@): give credentials in "headers" (an Authorization header)');
    secrets.push(...urlCredentials(url));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.headers ?? {})) {
      headers[k] = x(v, `headers.${k}`);
      // "Bearer TOKEN": the rule takes the token alone (it may be echoed without its scheme)
      secrets.push(headers[k]);
    }
    const transport: Transport = { kind: "http", url, headers };
    return { ...base, transport, fingerprint: hash([transport, base.startupTimeoutMs, base.toolTimeoutMs, base.disabled]) };
  } catch (e) {
    return bad(messageOf(e));
  }
}

/** The scheme a URL is written with, as a phrase ("its scheme is "ftp:""): the file's own text. */
function writtenScheme(url: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]{0,20}:/.exec(url);
  return m ? `its scheme is "${m[0]}"` : "it has no scheme";
}

/** A URL's user name and password, and the values of its query parameters named like
 * credentials ("?token=…", "&api_key=…"): the rest of a URL the file writes is ordinary text. */
function urlCredentials(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = [u.username, u.password].filter((v) => v.length > 0);
  for (const [k, v] of u.searchParams) if (credentialName(k)) out.push(v);
  return out;
}

/**
 * A field that cannot start what it seems to: a NUL (no program can be given one), an
 * environment name with "=" (`"A=B": "c"` sets A, so the name shown is not the variable
 * set), a URL with a control character or space (the URL parser drops some silently, so
 * the address used is not the one shown).
 */
function unfitField(c: McpServerConfig): string | undefined {
  const fields: [string, string][] = [
    ...(c.command !== undefined ? [["command", c.command] as [string, string]] : []),
    ...(c.args ?? []).map((a, i): [string, string] => [`args.${i}`, a]),
    ...(c.cwd !== undefined ? [["cwd", c.cwd] as [string, string]] : []),
    ...Object.entries(c.env ?? {}).flatMap(([k, v]): [string, string][] => [[`env name ${JSON.stringify(k)}`, k], [`env.${k}`, v]]),
  ];
  for (const [where, v] of fields) if (v.includes("\0")) return `${where} holds a NUL character, which no program can be given`;
  for (const k of Object.keys(c.env ?? {})) if (k.includes("=")) return `env name ${JSON.stringify(k)} holds "=": the variable it would set is not the one it names`;
  // eslint-disable-next-line no-control-regex
  if (c.url !== undefined && /[\u0000-\u0020\u007f]/.test(c.url)) return '"url" holds a control character or a space: the address used would not be the one shown';
  return undefined;
}

/** Reads the user's config (mcpServers, allowInReadOnly) and the workspace's .mcp.json. A
 * bad config file throws (as at start); a bad project file becomes a problem, and the agent
 * works on without its servers. */
export function loadExtensionConfig(opts: { configFile?: string; workspace: string; env?: NodeJS.ProcessEnv }): ExtensionConfig {
  const env = opts.env ?? process.env;
  const secrets: string[] = [];
  const problems: string[] = [];
  const servers: ServerSpec[] = [];
  let allowInReadOnly: string[] = [];
  let secretEnv: string[] = [];
  if (opts.configFile) {
    const { config, file } = loadConfig(opts.configFile);
    allowInReadOnly = config.allowInReadOnly ?? [];
    secretEnv = config.mcpSecretEnv ?? [];
    for (const [name, raw] of Object.entries(config.mcpServers ?? {})) {
      servers.push(normalizeServer(name, raw, { origin: "config", file, workspace: opts.workspace, secretEnv }, env, secrets));
    }
  }
  const file = path.join(opts.workspace, PROJECT_FILE);
  let project: ExtensionConfig["project"];
  let bytes: Buffer | undefined;
  try {
    // read on its own, as AGENTS.md is: a link out of the workspace (to the user's own
    // config, to /proc/self/environ) is refused
    bytes = readWorkspaceFileSync(opts.workspace, PROJECT_FILE, { what: "the project's MCP file", maxBytes: 1024 * 1024 });
  } catch (e) {
    // a StartFileError names the file and why already
    if (!(e instanceof StartFileError && e.code === "ENOENT")) problems.push(e instanceof StartFileError ? e.message : `${file} could not be read: ${messageOf(e)}`);
  }
  if (bytes) {
    project = { file, sha256: crypto.createHash("sha256").update(bytes).digest("hex") };
    let text = "";
    try {
      text = decodeUtf8(bytes, file);
      const parsed = projectFileSchema.safeParse(JSON.parse(text));
      if (!parsed.success) problems.push(`${file}: ${describeIssues(parsed.error.issues)} (it holds {"mcpServers": {NAME: {...}}})`);
      else {
        const taken = new Set(servers.map((s) => s.name));
        for (const [name, raw] of Object.entries(parsed.data.mcpServers)) {
          if (taken.has(name)) {
            problems.push(`${file}: server "${name}" is also in ${opts.configFile}; the config file's is used`);
            continue;
          }
          servers.push(normalizeServer(name, raw, { origin: "project", file, workspace: opts.workspace, secretEnv }, env, secrets));
        }
      }
    } catch (e) {
      // in words of its own: JSON.parse's message quotes the file's bytes
      problems.push(e instanceof StartFileError ? e.message : `${file} is ${jsonSyntaxProblem(text)}`);
    }
  }
  return { servers, secrets: secrets.filter((s) => s.length > 0), allowInReadOnly, ...(project ? { project } : {}), problems };
}

