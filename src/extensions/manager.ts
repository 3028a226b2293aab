// The MCP servers of a run (docs/architecture.md, Extensions): read from the config and the
// workspace's .mcp.json, started in parallel when the front end asks (after the first
// frame), each with a state the /mcp listing shows. Their tools join the request as
// mcp__<server>__<tool> through the same permission policy as built-in tools; their
// `instructions` become context items named by the server. A server that fails to start,
// crashes, hangs or answers nonsense leaves the agent working: its calls end as error
// results and its state says why. The SDK is imported only when a server is started.
import type { CommandSandbox } from "../tools/spawn-command.js";
import { z } from "zod";
import type { ContextItem } from "../provider/types.js";
import type { ToolDef, ToolOutput } from "../tools/types.js";
import { messageOf } from "../record/errors.js";
import { keyHoldsSecret } from "../config/secrets.js";
import { visibleEscape } from "../text/sanitize.js";
import { loadExtensionConfig, PROJECT_FILE, type ExtensionConfig, type ServerSpec } from "./config.js";
import { approve, readApprovals } from "./approvals.js";
import { launchLines } from "./display.js";
import { assignNames, sanitizeName } from "./names.js";
import { mapResult } from "./results.js";
import type { Connection, McpTool } from "./client.js";

type ServerState = "disabled" | "invalid" | "not approved" | "idle" | "starting" | "ready" | "failed" | "stopped";
type Approval = "not needed" | "approved" | "not approved";

export interface ServerStatus {
  name: string;
  origin: ServerSpec["origin"];
  file: string;
  transport: "stdio" | "http" | "none";
  state: ServerState;
  tools: number;
  approval: Approval;
  lastError?: string;
  /** names only: the values are secrets */
  envNames: string[];
  headerNames: string[];
  pid?: number;
}

interface Server {
  spec: ServerSpec;
  state: ServerState;
  conn?: Connection;
  tools: McpTool[];
  instructions?: string;
  lastError?: string;
  /** the start in progress */
  starting?: Promise<void>;
  /** ends the start in progress (close, /reload): a hung initialize is not waited out */
  abort?: AbortController;
}

export interface ManagerOptions {
  workspace: string;
  configFile?: string;
  /** no screen to approve in: unapproved project servers are refused with a sentence. A
   * server that fails is a warning there (stderr), not an error: the turn runs without its
   * tools, and the run's exit code is the turn's */
  headless: boolean;
  /** what the next request holds changed (tools or instructions): the inspector goes pending */
  onChange(reason: string): void;
  /** something a person should read (a server failed, was refused) */
  onNotice(level: "info" | "warning" | "error", text: string): void;
  /** the command sandbox for servers whose entry says "sandbox": true; undefined when
   * commands cannot be sandboxed here (such a server is then not started) */
  commandSandbox?: () => Promise<CommandSandbox | undefined>;
  /** cuts the configured keys and the servers' secrets out of what a server says */
  redact(text: string): string;
  env?: NodeJS.ProcessEnv;
}

/** The instructions a server may add to every request (longer ones are cut, and say so). */
const MAX_INSTRUCTIONS = 20_000;

/** the most of what a server says (an error, its stderr) kept as its last error */
const MAX_ERROR = 600;

/** Text for a person: every character one cannot see for what it is written as an escape,
 * never removed (a path or a command shown must be the one used). Applied once, where text
 * leaves the manager: notices, /mcp, status, the answers of /mcp approve and /reload. */
const shown = (text: string): string => visibleEscape(text);

const HOW_TO_APPROVE = "open albedo-tui in this workspace and approve it with /mcp approve (remembered for this workspace and this version of the file)";

/** A tool call's input as the SDK sends it: an object. */
const argsSchema = z.record(z.string(), z.unknown());

export class ExtensionManager {
  private servers: Server[] = [];
  private config: ExtensionConfig = { servers: [], secrets: [], allowInReadOnly: [], problems: [] };
  private started = false;
  private toolDefs: ToolDef[] = [];
  /** which server each offered tool belongs to */
  private owners = new Map<string, Server>();
  private refused: { server: string; message: string }[] = [];
  private approvalsProblem: string | undefined;
  /** whether the workspace's .mcp.json, as read, is approved (kept: secrets() runs on every
   * redaction and must not read a file) */
  private projectOk = false;

  constructor(private readonly opts: ManagerOptions) {}

  private notice(level: "info" | "warning" | "error", text: string): void {
    this.opts.onNotice(level === "error" && this.opts.headless ? "warning" : level, shown(text));
  }

  /** Reads the configuration (no server starts). A bad config file throws, as at start. */
  configure(): void {
    this.config = loadExtensionConfig({ workspace: this.opts.workspace, ...(this.opts.env ? { env: this.opts.env } : {}), ...(this.opts.configFile ? { configFile: this.opts.configFile } : {}) });
    this.projectOk = this.projectApproved();
    this.servers = this.config.servers.map((spec) => ({ spec, state: this.initialState(spec), tools: [] }));
    this.rebuildTools();
  }

  /** whether any server is configured at all (nothing else happens when none is) */
  hasServers(): boolean {
    return this.servers.length > 0 || this.config.problems.length > 0;
  }

  private projectApproved(): boolean {
    const p = this.config.project;
    if (!p) return false;
    const r = readApprovals();
    this.approvalsProblem = r.problem;
    return r.approvals.some((a) => a.workspace === this.opts.workspace && a.sha256 === p.sha256);
  }

  private approvalOf(spec: ServerSpec): Approval {
    if (spec.origin === "config") return "not needed";
    return this.projectApproved() ? "approved" : "not approved";
  }

  private initialState(spec: ServerSpec): ServerState {
    if (spec.problem) return "invalid";
    if (spec.disabled) return "disabled";
    if (this.approvalOf(spec) === "not approved") return "not approved";
    return "idle";
  }

  /**
   * Starts every server that may start, in parallel; resolves when each has started or
   * failed (each within its startup timeout). Called once after the first frame (the
   * screen) or before the first turn (headless); later calls wait for the same starts.
   */
  start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      for (const p of this.config.problems) this.notice("warning", `MCP: ${p}`);
      if (this.approvalsProblem) this.notice("warning", `MCP: ${this.approvalsProblem}`);
      const waiting = this.servers.filter((s) => s.state === "not approved");
      if (waiting.length > 0) {
        const names = waiting.map((s) => s.spec.name).join(", ");
        const file = waiting[0]!.spec.file;
        this.notice(
          "warning",
          this.opts.headless
            ? `MCP: not starting ${names} from ${file}: a project's servers run only once approved; ${HOW_TO_APPROVE}.`
            : `MCP: ${file} declares ${names}; they run commands, so they start only once you approve: /mcp lists them, /mcp approve starts them.`,
        );
      }
      for (const s of this.servers) if (s.state === "invalid" && s.spec.problem) this.notice("warning", `MCP: ${s.spec.problem}`);
    }
    return Promise.all(this.servers.filter((s) => s.state === "idle").map((s) => this.startOne(s))).then(() => this.allStarts());
  }

  /** waits for every start in progress */
  private async allStarts(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.starting));
  }

  private startOne(s: Server): Promise<void> {
    if (s.starting) return s.starting;
    s.state = "starting";
    delete s.lastError;
    const abort = new AbortController();
    s.abort = abort;
    const run = (async () => {
      // set once connect() hands the connection over: the hooks act only for the connection
      // this server holds now (a server that ends while it starts fails the start instead)
      let conn: Connection | undefined;
      const current = (): boolean => conn !== undefined && this.servers.includes(s) && s.conn === conn;
      // the hooks run in the SDK's callbacks: a throw there would end the whole program
      const guarded = (what: string, fn: () => void): void => {
        try {
          fn();
        } catch (e) {
          this.notice("error", `MCP server ${s.spec.name}: ${what} failed: ${this.clean(messageOf(e))}`);
        }
      };
      try {
        const { connect } = await import("./client.js");
        const t = s.spec.transport;
        let spec = s.spec;
        if (t?.kind === "stdio" && t.sandboxed === true) {
          const box = await this.opts.commandSandbox?.();
          // nothing pretends to sandbox where it cannot: the server is not started unsandboxed
          if (!box) throw new Error('its entry says "sandbox": true, and commands cannot be sandboxed here (bubblewrap does not work); it was not started');
          spec = { ...s.spec, transport: { ...t, sandbox: { ...box, writable: [t.cwd] } } };
        }
        conn = await connect(
          spec,
          this,
          {
            onTools: (tools, note) =>
              guarded("taking its changed tools", () => {
                if (!current()) return;
                this.noteTools(s, note);
                this.setTools(s, tools, `${s.spec.name} changed its tools`);
              }),
            onLost: (reason) =>
              guarded("marking it stopped", () => {
                if (!current()) return;
                s.state = "failed";
                s.lastError = this.clean(reason);
                delete s.conn;
                this.notice("error", `MCP server ${s.spec.name} stopped: ${s.lastError}. Its tools are gone ${this.opts.headless ? "for the rest of this run" : "until /reload"}.`);
                this.setTools(s, [], `${s.spec.name} stopped`, undefined);
              }),
            // may come while it starts: nothing here may depend on the connection
            onWarning: (text) =>
              guarded("naming its notifications", () => {
                if (!this.servers.includes(s)) return;
                s.lastError = this.clean(text);
                this.notice("warning", `MCP server ${s.spec.name} ${s.lastError}`);
              }),
          },
          abort.signal,
        );
        if (!this.servers.includes(s) || abort.signal.aborted) {
          // reloaded away or closed while it started
          if (abort.signal.aborted) s.state = "stopped";
          await conn.close();
          return;
        }
        s.conn = conn;
        s.state = "ready";
        this.noteTools(s, conn.note);
        this.setTools(s, conn.tools, `${s.spec.name} started`, conn.instructions);
        const n = this.status().find((x) => x.name === s.spec.name)?.tools ?? 0;
        this.notice("info", `MCP server ${s.spec.name} ready: ${n} tool${n === 1 ? "" : "s"}${s.instructions ? " and instructions" : ""}.`);
      } catch (e) {
        // stopped on purpose (close, /reload) while it started: no failure to report
        if (abort.signal.aborted) {
          s.state = "stopped";
          return;
        }
        s.state = "failed";
        s.lastError = this.clean(messageOf(e));
        this.notice("error", `MCP server ${s.spec.name} could not start: ${s.lastError}${this.opts.headless ? " (this run goes on without its tools)" : ""}`);
      } finally {
        delete s.starting;
        delete s.abort;
      }
    })();
    s.starting = run;
    return run;
  }

  /** a tool list cut to its bounds: said once, and kept as the server's last error for /mcp */
  private noteTools(s: Server, note: string | undefined): void {
    // a list fetched again with the same cut is not said again
    if (!note || this.clean(note) === s.lastError) return;
    s.lastError = this.clean(note);
    this.notice("warning", `MCP server ${s.spec.name}: ${s.lastError}`);
  }

  /** what a server says, as one line for the record: its secrets cut out, and cut (with a
   * mark) past MAX_ERROR characters. Escaped for a person where it leaves (shown()). */
  private clean(text: string): string {
    const t = this.opts.redact(text).replace(/\s+/g, " ").trim();
    return t.length > MAX_ERROR ? `${t.slice(0, MAX_ERROR)} [… cut at ${MAX_ERROR} characters]` : t;
  }

  private setTools(s: Server, tools: McpTool[], reason: string, instructions: string | undefined = s.instructions): void {
    const before = this.signature();
    s.tools = tools;
    if (instructions !== undefined) s.instructions = instructions;
    else delete s.instructions;
    this.rebuildTools();
    if (this.signature() !== before) this.opts.onChange(`extensions changed: ${reason}`);
  }

  /** what the next request holds of the extensions: tools (names, descriptions, schemas) and instructions */
  private signature(): string {
    return JSON.stringify([this.toolDefs.map((t) => [t.name, t.description, z.toJSONSchema(t.input)]), this.context()]);
  }

  private rebuildTools(): void {
    const all = this.servers.flatMap((s) => (s.state === "ready" ? s.tools.map((t) => ({ server: s.spec.name, tool: t.name, value: { s, t } })) : []));
    // a name (the tool's, or a property's in its schema) that holds a secret cannot be sent:
    // the request would carry it, and a cut one is no name. Refused, without the name; this
    // runs again whenever servers or secrets change (turn/redact.ts leaves such a tool out of
    // every request in any case)
    const secretNamed = all.filter((e) => this.opts.redact(e.tool) !== e.tool || keyHoldsSecret(e.value.t.inputSchema, this.opts.redact));
    const entries = all.filter((e) => !secretNamed.includes(e));
    const { named, refused } = assignNames(entries);
    for (const e of secretNamed) refused.push({ server: e.server, message: `a tool of server "${e.server}" is not offered: its name, or a name in its input schema, holds a secret` });
    for (const r of refused) if (!this.refused.some((x) => x.message === r.message)) this.notice("warning", `MCP: ${r.message}`);
    this.refused = refused;
    this.owners = new Map(named.map((n) => [n.wire, n.value.s]));
    this.toolDefs = named.map((n) => this.toolDef(n.wire, n.value.s, n.value.t));
  }

  private allowedInReadOnly(wire: string, server: string): boolean {
    const all = `mcp__${sanitizeName(server)}__*`;
    return this.config.allowInReadOnly.some((p) => p === wire || p === all);
  }

  private toolDef(wire: string, s: Server, t: McpTool): ToolDef {
    // The server's schema is sent as it declared it (zod's metadata is merged into the JSON
    // Schema the request carries); the input is checked to be an object, and the server
    // checks the rest. An "id" key would register in zod's global id map: it is not a
    // JSON Schema keyword tool schemas use, so it is left out.
    const { id: _id, ...declared } = t.inputSchema;
    const input = z
      .unknown()
      .refine((v) => argsSchema.safeParse(v).success, "the input must be a JSON object")
      .meta(declared);
    const server = s.spec.name;
    return {
      name: wire,
      description: t.description,
      // a server's annotations (readOnlyHint…) are hints from the server, never trusted: only
      // the user's allowInReadOnly lets a tool run in read-only mode, and `ask` asks for
      // every MCP tool (as a read it would have run unasked)
      kind: "exec",
      readOnlyAllowed: this.allowedInReadOnly(wire, server),
      input,
      summarize: (v) => `${wire} ${JSON.stringify(v).slice(0, 300)} (MCP server ${server})`,
      run: (v, ctx) => this.call(s, t.name, argsSchema.parse(v), ctx.signal, ctx.redact),
    };
  }

  private async call(s: Server, tool: string, args: Record<string, unknown>, signal: AbortSignal, redact?: (t: string) => string): Promise<ToolOutput> {
    const conn = s.conn;
    if (!conn || s.state !== "ready") return { output: shown(`MCP server ${s.spec.name} is ${s.state}${s.lastError ? `: ${s.lastError}` : ""}`), isError: true };
    const cut = (t: string): string => this.opts.redact(redact ? redact(t) : t);
    try {
      const raw = await conn.call(tool, args, signal);
      return await mapResult(raw, cut);
    } catch (e) {
      if (signal.aborted) return { output: "interrupted (the server was asked to cancel the call)", isError: true };
      const { describeFailure } = await import("./client.js");
      const why = describeFailure(e, `${tool} on MCP server ${s.spec.name}`, s.spec.toolTimeoutMs);
      return { output: shown(cut(why).slice(0, 2000)), isError: true };
    }
  }

  /** the tools of the servers that are ready, as tool definitions */
  tools(): ToolDef[] {
    return this.toolDefs;
  }

  /** each ready server's instructions, as a context item named by the server */
  context(): ContextItem[] {
    const out: ContextItem[] = [];
    for (const s of this.servers) {
      if (s.state !== "ready" || !s.instructions?.trim()) continue;
      let text = this.opts.redact(s.instructions);
      if (text.length > MAX_INSTRUCTIONS) text = `${text.slice(0, MAX_INSTRUCTIONS)}\n[… the server's instructions were cut at ${MAX_INSTRUCTIONS} characters]`;
      out.push({ source: `MCP server ${s.spec.name} (instructions)`, text });
    }
    return out;
  }

  /** the values of env and headers: the redactor cuts them out of everything. Only of servers
   * that may start: an unapproved .mcp.json must not choose what is cut out of the session */
  secrets(): string[] {
    return this.servers.flatMap((s) => (s.spec.origin === "config" || this.projectOk ? s.spec.secrets : []));
  }

  status(): ServerStatus[] {
    return this.servers.map((s) => ({
      name: s.spec.name,
      origin: s.spec.origin,
      file: s.spec.file,
      transport: s.spec.transport?.kind ?? "none",
      state: s.state,
      tools: s.state === "ready" ? [...this.owners.values()].filter((o) => o === s).length : 0,
      approval: this.approvalOf(s.spec),
      // cut again: a secret may have joined since it was said (an approval, a /reload)
      ...(s.lastError ? { lastError: shown(this.opts.redact(s.lastError)) } : s.spec.problem ? { lastError: shown(s.spec.problem) } : {}),
      envNames: s.spec.envNames,
      headerNames: s.spec.headerNames,
      ...(s.conn?.pid !== undefined ? { pid: s.conn.pid } : {}),
    }));
  }

  /** /mcp: one line per server, then what to do */
  describe(): string {
    if (this.servers.length === 0 && this.config.problems.length === 0) {
      return `No MCP servers: add "mcpServers" to the config file${this.opts.configFile ? ` (${this.opts.configFile})` : ""} or a ${PROJECT_FILE} to the workspace.`;
    }
    // each line escaped once: its own text here, each value of the file in launchLines
    const lines = ["MCP servers:"];
    for (const st of this.status()) {
      const tools = st.state === "ready" ? `, ${st.tools} tool${st.tools === 1 ? "" : "s"}` : "";
      const from = st.origin === "project" ? ` · ${PROJECT_FILE} (${st.approval})` : " · config";
      // status() has escaped the last error already
      const err = st.lastError ? ` · last error: ${st.lastError}` : "";
      lines.push(`  ${shown(st.name)} (${st.transport}): ${st.state}${tools}${from}${err}`);
    }
    // what approving would start: every field that decides it, in full, as the file writes it
    for (const s of this.servers) if (s.state === "not approved") lines.push(...launchLines(s.spec, this.opts.workspace));
    for (const r of this.refused) lines.push(shown(`  refused: ${r.message}`));
    for (const p of this.config.problems) lines.push(shown(`  problem: ${p}`));
    if (this.servers.some((s) => s.state === "not approved")) lines.push(shown(`/mcp approve starts the servers of ${this.config.project?.file ?? PROJECT_FILE} (and remembers it for this version of the file).`));
    return lines.join("\n");
  }

  /** /mcp approve: remembers the project file's content as approved and starts its servers */
  async approveProject(): Promise<string> {
    const p = this.config.project;
    if (!p) return shown(`There is no ${PROJECT_FILE} in ${this.opts.workspace} to approve.`);
    const waiting = this.servers.filter((s) => s.state === "not approved");
    if (waiting.length === 0) return shown(`${p.file} is approved already (or declares no server that can start).`);
    if (this.opts.headless) return `MCP servers cannot be approved without a screen; ${HOW_TO_APPROVE}.`;
    approve(this.opts.workspace, p.sha256);
    this.projectOk = true;
    for (const s of waiting) s.state = "idle";
    await Promise.all(waiting.map((s) => this.startOne(s)));
    return shown(`Approved ${p.file} (sha256 ${p.sha256.slice(0, 12)}…) for ${this.opts.workspace}. ${waiting.map((s) => `${s.spec.name}: ${s.state}${s.lastError ? ` (${s.lastError})` : ""}`).join("; ")}.`);
  }

  /**
   * /reload: reads the configuration again; servers whose entry changed (or that failed) are
   * restarted, removed ones stopped, new ones started. Returns what happened, in words.
   */
  async reload(): Promise<string> {
    const before = this.signature();
    const old = new Map(this.servers.map((s) => [`${s.spec.origin}:${s.spec.name}`, s]));
    this.config = loadExtensionConfig({ workspace: this.opts.workspace, ...(this.opts.env ? { env: this.opts.env } : {}), ...(this.opts.configFile ? { configFile: this.opts.configFile } : {}) });
    this.projectOk = this.projectApproved();
    const next: Server[] = [];
    const said: string[] = [];
    const stops: Promise<void>[] = [];
    for (const spec of this.config.servers) {
      const key = `${spec.origin}:${spec.name}`;
      const was = old.get(key);
      old.delete(key);
      const state = this.initialState(spec);
      if (was && was.spec.fingerprint === spec.fingerprint && (was.state === "ready" || was.state === "starting") && state === "idle") {
        next.push(was);
        continue;
      }
      if (was) stops.push(this.stopServer(was));
      if (was) said.push(`${spec.name} ${state === "idle" ? "restarted" : state}`);
      else said.push(`${spec.name} added`);
      next.push({ spec, state, tools: [] });
    }
    for (const [, s] of old) {
      stops.push(this.stopServer(s));
      said.push(`${s.spec.name} removed`);
    }
    this.servers = next;
    this.rebuildTools();
    await Promise.all(stops);
    if (this.started) await Promise.all(this.servers.filter((s) => s.state === "idle").map((s) => this.startOne(s)));
    if (this.signature() !== before) this.opts.onChange(`extensions changed (/reload): ${said.join(", ") || "their tools or instructions"}`);
    const states = this.servers.map((s) => `${s.spec.name} ${s.state}${s.state === "failed" && s.lastError ? `: ${s.lastError}` : ""}`).join(", ");
    return shown(`MCP: ${said.length > 0 ? said.join(", ") : "no server changed"}${states ? ` (now: ${states})` : ""}.`);
  }

  /** Stops one server: a start in progress is ended (not waited out), a connection closed. */
  private async stopServer(s: Server): Promise<void> {
    s.abort?.abort(new Error("stopped"));
    await s.starting?.catch(() => undefined);
    const c = s.conn;
    delete s.conn;
    if (s.state === "ready") s.state = "stopped";
    await c?.close();
  }

  /** Stops every server (each process group); called on exit. */
  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => this.stopServer(s)));
  }
}
