// The running app: one session at a time over one store, a provider, tools and the turn loop.
// Both front ends (the screen and headless -p) drive it through the Controller interface.
import path from "node:path";
import fs from "node:fs/promises";
import type { Block, ImageBlock, Session, StoredMessage } from "../../record/types.js";
import type { ContextItem, Provider, ProviderName, Request, RequestCache, Usage } from "../../provider/types.js";
import type { ServerMemory } from "../../provider/create.js";
import { keyRequired, missingKeyMessage, openaiApi } from "../../provider/keys.js";
import type { OpenAIApi } from "../../provider/types.js";
import { catalogModels, defaultModel, familyOf, lookupModel as catalogLookup, supportsReasoning, type ModelInfo } from "../../provider/catalog.js";
import type { ModelChoices, ProviderModels } from "../../provider/models.js";
import type { BadMessage, HistoryStore } from "../store/types.js";
import { NO_REQUEST_YET, StoreError, newSessionId } from "../store/store.js";
import { EventHub, type Listener, type SubscribeOptions } from "../turn/events.js";
import type { AppInfo, ContextFigure, ContextStatus, Controller, RewindControl } from "./types.js";
import type { PermissionAnswer, PermissionRequest } from "../../tools/types.js";
import type { builtinTools, PermissionMemory } from "../../tools/run.js";
import { stopToolProcesses } from "../../tools/processes.js";
import { loadProjectContext, SYSTEM_PROMPT } from "./project-context.js";
import { redactorFor } from "../../config/secrets.js";
import type { Settings } from "../../config/resolve.js";
import type { TurnEnv, TurnOutcome } from "../turn/turn.js";
import { redactRequest } from "../turn/redact.js";
import { turnRequest } from "../../replay/request.js";
import { imageTarget, targetForRequest, unseenReason, type ImageTarget } from "../../replay/replay.js";
import { formatFigure, requestEstimate } from "../../context/format.js";
import type { PrepareResult } from "../../compaction/prepare.js";
import { loadImage } from "./images.js";
import { exportJson, exportMarkdown } from "./export.js";
import { autoCompactionOff } from "../../compaction/prepare.js";
import { isPlainPrompt } from "../../compaction/summary.js";
import type { Checkpoints } from "../checkpoints/checkpoints.js";
import type { TurnCheckpoint } from "../checkpoints/turn.js";
import { methodFor } from "../../tokens/count.js";
import type { Capture, InspectorView, Page, SectionSummary } from "../../context/types.js";
import { formatInt } from "../../record/numbers.js";
import { messageOf } from "../../record/errors.js";
import { quoteId, sessionIdProblem } from "../../record/session-id.js";
import { ExtensionManager } from "../../extensions/manager.js";
import type { McpControl } from "./types.js";

export const DEFAULT_BASE_URL: Record<ProviderName, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
};

/** The settings the controller runs with: all of them but the screen's key bindings and colours. */
export type AppSettings = Omit<Settings, "keymap" | "keys" | "theme">;

export interface AppOptions extends AppSettings {
  store: HistoryStore;
  /** the config file this run reads, named when a key is missing */
  configFile?: string;
  /** the session to open: an id, "latest" of the workspace, or a new one; with `fork`, a
   * fork of it at its end instead (--fork-session) */
  open: { resume: string; fork?: boolean } | { continue: true; fork?: boolean } | { fresh: true };
  /** the screen: the session loads without the adapters, tools and turn (parts.ts), and the
   * screen calls ready() after the frame that shows it; otherwise create() loads them first */
  partsAfterFrame?: boolean;
  /** how permission questions are answered when no screen asks a person */
  headless: boolean;
  /** re-reads the settings on /reload; of them, permission, compaction, reasoning and the
   * credentials take effect */
  reloadConfig?: () => Promise<Partial<Pick<AppSettings, "permission" | "compaction" | "reasoning" | "credentials">>>;
  /** the folder the turns' file checkpoints are kept in (the CLI's is in the state folder);
   * absent: none are kept or restored; the config's checkpoints.enabled false: a turn keeps
   * none, and a rewind still restores those kept before */
  checkpointDir?: string;
}

export class UnknownSessionError extends Error {}

/** The adapters, the tools and the turn, imported lazily (App.ready). */
type Parts = typeof import("./parts.js");

/** How many of the newest messages a screen reads before its first frame. */
const FIRST_FRAME_MESSAGES = 300;

/** The sources whose text differs between two readings of the project context (a repeated
 * source numbered as the capture numbers it). */
function changedItems(before: readonly ContextItem[], after: readonly ContextItem[]): string[] {
  const keyed = (items: readonly ContextItem[]): Map<string, string> => {
    const out = new Map<string, string>();
    for (const item of items) {
      let source = item.source;
      for (let n = 2; out.has(source); n++) source = `${item.source} (${n})`;
      out.set(source, item.text);
    }
    return out;
  };
  const a = keyed(before);
  const b = keyed(after);
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k));
}

type Reloadable = Pick<AppSettings, "permission" | "compaction" | "reasoning" | "credentials">;

/** what /reload changed among the settings, in words; keys are named, never shown */
function settingsChanges(was: Reloadable, now: Reloadable): string {
  const out: string[] = [];
  for (const k of ["permission", "compaction", "reasoning"] as const) if (was[k] !== now[k]) out.push(`${k} ${was[k]} → ${now[k]}`);
  for (const p of ["anthropic", "openai"] as const) {
    const a = was.credentials.keys[p];
    const b = now.credentials.keys[p];
    if (a !== b) out.push(!a ? `${p} key added` : !b ? `${p} key removed` : `${p} key changed`);
    const u = was.credentials.baseUrls[p];
    const v = now.credentials.baseUrls[p];
    if (u !== v) out.push(`${p} base URL ${v ? `now ${v}` : "back to the default"}`);
  }
  return out.length ? `changed: ${out.join(", ")}` : "nothing changed";
}

function badLines(bad: readonly BadMessage[]): string[] {
  return bad.map((b) => `message #${b.seq} (${b.role}, id ${b.id}) could not be read: ${b.error}`);
}
/** headless mode without the key it needs: nothing is created, the sentence says what to set */
export class MissingKeyError extends Error {}
/** /model named a provider and model that cannot go together */
export class ModelChoiceError extends Error {}

const PROVIDER_LABEL: Record<ProviderName, string> = { anthropic: "Anthropic", openai: "OpenAI" };

/** the provider's own API (not a gateway or a local server): it serves only its own models */
function isOwnApi(provider: ProviderName, url: string): boolean {
  try {
    return new URL(url).hostname === new URL(DEFAULT_BASE_URL[provider]).hostname;
  } catch {
    return false;
  }
}

export class App implements Controller {
  /** every notice, retry reason and turn error passes the one redactor on its way out */
  private readonly hub = new EventHub((t) => this.redactKeys(t));
  private current!: Session;
  private messages: StoredMessage[] = [];
  /** settles when messages holds the whole record (see load) */
  private wholeHistory: Promise<void> = Promise.resolve();
  private providerName: ProviderName;
  private model: string;
  /** built from the parts for the current model and keys; undefined until then or after a change */
  private provider: Provider | undefined;
  /** set once ready() has loaded them */
  private parts: Parts | undefined;
  private partsLoading: Promise<Parts> | undefined;
  /** settles when ready() has loaded the parts: the figure waits for this, never starting the load itself */
  private readonly partsIn: Promise<Parts>;
  private partsArrived!: (p: Parts) => void;
  /** per provider and base URL: the optional fields its server refused (buildProvider) */
  private readonly serverMemories = new Map<string, ServerMemory>();
  private context: ContextItem[] = [];
  /** made with the parts; undefined is a fresh, empty one */
  private memory: PermissionMemory | undefined;
  private abort: AbortController | undefined;
  private running: Promise<TurnOutcome> | undefined;
  /** a /compact in progress: it calls the provider and stores a summary, so it excludes turns */
  private compacting: Promise<string> | undefined;
  /** a prompt waiting for the parts (runPrompt): busy already, so the screen keeps a second
   * prompt's text and /new or a switch cannot move the first into another session */
  private awaitingParts = false;
  /** a composition change made while a turn or /compact ran: their later requests were
   * built from what they started with, so the view goes pending again when they end */
  private pendingAfterRun: string | undefined;
  /** what the provider reported for the last response (the next capture shows it) */
  private lastUsage: Usage | undefined;
  /** what compaction did for the last request, for the status line */
  private lastPrepare: PrepareResult | undefined;
  /** the status line's figure (see ContextFigure), worked out again after every capture or
   * pending mark; undefined until then */
  private figure: ContextFigure | undefined;
  /** the latest figure refresh: an older one that ends later must not overwrite it */
  private figureRun = 0;
  /** set when close() begins: from then on nothing new is started on the store */
  private closing = false;
  private closeBegun!: () => void;
  /** settles when close() begins: what waits for something that may never come stops waiting */
  private readonly closeStarted = new Promise<void>((resolve) => (this.closeBegun = resolve));
  /** store work nobody awaits (figure refreshes, pending marks): close() awaits it before the store closes */
  private readonly background = new Set<Promise<unknown>>();
  private apiInfo: AppInfo["api"];
  /** false while the current session is a draft: it gets its row when its first message is
   * stored, so a screen opened and closed without a prompt leaves nothing behind */
  private stored = true;
  private bad: string[] = [];
  /** the built-in tools, made when the parts load (a request is built only after that) */
  private tools: ReturnType<typeof builtinTools> = [];
  /** MCP servers (src/extensions/): their tools and instructions join every request */
  private readonly ext: ExtensionManager;
  /** the turns' file checkpoints, made with the parts (undefined: off, or not made yet) */
  private cps: Checkpoints | undefined;
  /** what was found at start beside the session's own problems (a rewind that was killed) */
  private readonly startNotes: string[] = [];
  /** a rewind runs: it changes the workspace and the session, so it excludes turns */
  private rewinding = false;

  subscribe(fn: Listener, opts?: SubscribeOptions): () => void {
    return this.hub.subscribe(fn, opts);
  }

  private constructor(private readonly opts: AppOptions) {
    this.providerName = opts.provider;
    this.model = opts.model ?? defaultModel(opts.provider);
    this.partsIn = new Promise((resolve) => (this.partsArrived = resolve));
    // a capture stored, or the view marked pending: the pane shows something else now, and
    // the status line must give the same figure
    this.hub.subscribe((e) => {
      if (e.type === "capture") void this.refreshFigure();
    });
    this.ext = new ExtensionManager({
      workspace: opts.workspace,
      ...(opts.configFile ? { configFile: opts.configFile } : {}),
      headless: opts.headless,
      // a server started, stopped, or changed its tools: the next request differs
      onChange: (reason) => {
        void this.inBackground(
          this.markPending(reason).catch((e: unknown) => {
            this.hub.emit({ type: "notice", level: "warning", text: `The context view could not be marked pending: ${messageOf(e)}` });
          }),
        );
        this.hub.emit({ type: "info" });
      },
      onNotice: (level, text) => this.hub.emit({ type: "notice", level, text }),
      redact: (t) => this.redactKeys(t),
    });
  }

  /** the tools of a request: the built-in ones, then the MCP servers' */
  private allTools(): ReturnType<typeof builtinTools> {
    return [...this.tools, ...this.ext.tools()];
  }

  /** the context items of a request: the project's, then each MCP server's instructions */
  private requestContext(): ContextItem[] {
    const ext = this.ext.context();
    return ext.length > 0 ? [...this.context, ...ext] : this.context;
  }

  /** MCP servers for the front ends: the screen starts them after its first frame */
  readonly mcp: McpControl = {
    start: () => {
      if (this.ext.hasServers()) void this.ext.start();
    },
    describe: () => this.ext.describe(),
    approve: () => this.ext.approveProject(),
    status: () => this.ext.status(),
  };

  /**
   * Loads the providers' adapters, the tools and the turn (parts.ts), once, and reads the
   * project context (AGENTS.md, CLAUDE.md, two git runs). Compiling the one and spawning git
   * for the other were ~50 ms between the screen's first frame and the session's (issue 19):
   * the screen calls this after the frame that shows the session; a turn, /compact, /reload
   * and the figure wait for it. A failure is said, and the next call tries again.
   */
  ready(): Promise<Parts> {
    this.partsLoading ??= Promise.all([import("./parts.js"), loadProjectContext(this.opts.workspace, this.redactKeys)]).then(
      async ([p, context]) => {
        this.context = context;
        this.parts = p;
        this.tools = p.builtinTools();
        this.partsArrived(p);
        await this.recoverRewind();
        return p;
      },
      (e: unknown) => {
        this.partsLoading = undefined;
        this.hub.emit({ type: "notice", level: "error", text: `Could not load what a turn needs: ${messageOf(e)}` });
        throw e;
      },
    );
    return this.partsLoading;
  }

  /** The run's checkpoints, made once the parts are in; undefined when they are off. */
  checkpoints(): Checkpoints | undefined {
    const dir = this.opts.checkpointDir;
    const conf = this.opts.checkpoints;
    if (dir === undefined || !this.parts) return undefined;
    this.cps ??= new this.parts.Checkpoints({
      dir,
      limits: { ...(conf?.maxFileBytes ? { maxFileBytes: conf.maxFileBytes } : {}), ...(conf?.maxTotalBytes ? { maxTotalBytes: conf.maxTotalBytes } : {}), ...(conf?.maxFiles ? { maxFiles: conf.maxFiles } : {}) },
      exclude: [this.opts.store.path],
      redact: this.redactKeys,
    });
    return this.cps;
  }

  /** A rewind of this workspace that was killed left temporary files and its journal: they
   * go, and the person is told how to finish it. */
  private async recoverRewind(): Promise<void> {
    try {
      const cps = this.checkpoints();
      // old checkpoints go behind the start, at most once a day; never in the way of a turn
      if (cps) void this.inBackground(cps.prune(this.opts.checkpoints?.keepDays).catch(() => undefined));
      const note = cps ? await cps.recover(await fs.realpath(this.opts.workspace)) : undefined;
      if (!note) return;
      this.startNotes.push(note);
      this.hub.emit({ type: "notice", level: "warning", text: note });
    } catch (e) {
      this.hub.emit({ type: "notice", level: "warning", text: `An interrupted rewind could not be cleaned up: ${messageOf(e)}` });
    }
  }

  /** The checkpoint of the turn about to run: prompt N of the session, N counted from 1 as
   * the screen counts prompts. Its hook goes into the turn's tools. */
  private async beginCheckpoint(env: TurnEnv): Promise<TurnCheckpoint | undefined> {
    const cps = this.checkpoints();
    if (!cps || this.opts.checkpoints?.enabled === false) return undefined;
    const prompt = this.messages.filter(isPlainPrompt).length + 1;
    const cp = cps.begin(this.current.id, prompt, await fs.realpath(this.opts.workspace));
    env.toolCtx = { ...env.toolCtx, beforeChange: cp.beforeChange };
    return cp;
  }

  /** After the turn: what its commands changed is worked out; what cannot be restored is named. */
  private async endCheckpoint(cp: TurnCheckpoint | undefined): Promise<void> {
    if (!cp) return;
    try {
      const c = await cp.finish();
      if (c.unrestorable.length > 0) {
        const n = c.unrestorable.length;
        this.hub.emit({
          type: "notice",
          level: "warning",
          text: `This turn changed ${n === 1 ? "a path" : `${n} paths`} a rewind cannot put back: ${c.unrestorable.join("; ")}`,
        });
      }
      for (const note of c.notes) this.hub.emit({ type: "notice", level: "info", text: `Checkpoint: ${note}` });
    } catch (e) {
      this.hub.emit({ type: "notice", level: "warning", text: `The checkpoint of this turn could not be completed: ${messageOf(e)}; a rewind may not know what its commands changed` });
    }
  }

  /** the parts, where only code that ran after ready() can be */
  private loaded(): Parts {
    if (!this.parts) throw new Error("internal: the turn's parts were used before App.ready()");
    return this.parts;
  }

  static async create(opts: AppOptions): Promise<App> {
    const app = new App(opts);
    if (!opts.partsAfterFrame) await app.ready();
    const keyProblem = app.keyProblem();
    if (opts.headless && keyProblem) throw new MissingKeyError(keyProblem);
    // reads the MCP configuration only: servers start later (mcp.start, or a headless turn)
    app.ext.configure();
    const o = opts.open;
    if ("resume" in o) {
      const problem = sessionIdProblem(o.resume);
      if (problem) throw new UnknownSessionError(`${problem}; list the sessions with: albedo-tui sessions`);
      const s = await opts.store.getSession(o.resume);
      if (!s) throw new UnknownSessionError(`no session with id ${quoteId(o.resume)} in ${opts.store.path}; list them with: albedo-tui sessions`);
      await app.load(o.fork ? await app.forkAtEnd(s) : s);
    } else if ("continue" in o) {
      const s = await opts.store.latestSession(opts.workspace);
      if (s) await app.load(o.fork ? await app.forkAtEnd(s) : s);
      else await app.loadDraft();
    } else {
      await app.loadDraft();
    }
    return app;
  }

  /** the catalog's facts, with the user's own figures (config contextWindow, vision) over them */
  private lookupModel(provider: ProviderName, model: string): ModelInfo {
    const info = { ...catalogLookup(provider, model) };
    if (this.opts.contextWindow !== undefined) info.contextWindow = this.opts.contextWindow;
    if (this.opts.vision !== undefined) info.vision = this.opts.vision;
    return info;
  }

  private baseUrlFor(p: ProviderName): string {
    if (p === this.opts.provider && this.opts.baseUrl) return this.opts.baseUrl;
    return this.opts.credentials.baseUrls[p] ?? DEFAULT_BASE_URL[p];
  }

  /** a key is needed for Anthropic, and for OpenAI's own endpoint; local servers need none */
  private keyProblem(): string | undefined {
    const key = this.opts.credentials.keys[this.providerName];
    if (key) return undefined;
    // the same rule the provider client applies, so the two never disagree
    if (!keyRequired(this.providerName, this.baseUrlFor(this.providerName))) return undefined;
    return missingKeyMessage(this.providerName, this.opts.configFile);
  }

  /** The provider for the current model and keys: built now when the parts are in, else
   * when env() first needs it. */
  private buildProvider(): void {
    if (!this.parts) {
      this.provider = undefined;
      return;
    }
    const { createProvider, serverMemory } = this.parts;
    const info = this.lookupModel(this.providerName, this.model);
    const apiKey = this.opts.credentials.keys[this.providerName];
    // what a server refused is remembered for the run, across /model and /reload (issue 16)
    const baseUrl = this.baseUrlFor(this.providerName);
    const where = `${this.providerName} ${baseUrl}`;
    let memory = this.serverMemories.get(where);
    if (!memory) this.serverMemories.set(where, (memory = serverMemory(baseUrl)));
    this.provider = createProvider({
      memory,
      provider: this.providerName,
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
      ...(this.opts.idleTimeoutMs ? { idleTimeoutMs: this.opts.idleTimeoutMs } : {}),
    });
  }

  /** A new session, not yet in the store: its row is written with its first message. */
  private async loadDraft(): Promise<void> {
    const now = new Date().toISOString();
    await this.load({ id: newSessionId(), title: "", workspace: this.opts.workspace, createdAt: now, updatedAt: now }, false);
  }

  /** Gives a draft its row, under the id it was shown with, before its first message; with
   * its title in the same statement (a separate setTitle was one more commit before the
   * first request, issue 19). */
  private async ensureStored(title?: string): Promise<void> {
    if (this.stored) return;
    const draft = this.current;
    const row = await this.opts.store.createSession({ workspace: draft.workspace, id: draft.id, ...(title ? { title } : {}) });
    // the same object stays current (a turn and the figure hold it); only the stored facts change
    Object.assign(draft, row);
    this.stored = true;
  }

  private async load(s: Session, stored = true): Promise<void> {
    if (!stored) {
      this.current = s;
      this.stored = false;
      this.messages = [];
      this.bad = [];
      this.lastUsage = undefined;
      this.lastPrepare = undefined;
      this.figure = undefined;
      this.memory = undefined;
      this.wholeHistory = Promise.resolve();
      // before the parts are in, the figure follows them (an "info" event); the session shows now
      const figure = this.refreshFigure();
      if (this.parts) await figure;
      return;
    }
    // On a screen, the newest messages come first so the first frame does not wait for a
    // long record; the rest follows at once, and everything that needs the whole record
    // (a turn, /compact, /export) waits for it.
    const first = this.opts.headless ? undefined : FIRST_FRAME_MESSAGES;
    // read first: a session that cannot be read leaves the current one as it was (its
    // messages and permission memory must never be sent as another session's)
    const loaded = await this.opts.store.loadHistory(s.id, first === undefined ? undefined : { last: first });
    this.current = s;
    this.stored = true;
    this.messages = loaded.messages;
    const partial = first !== undefined && loaded.messages.length + loaded.bad.length >= first;
    this.bad = partial ? [] : badLines(loaded.bad);
    // the provider's report for the session's last answer, as stored with it: the first
    // request after a restart shows it as the previous response's usage
    this.lastUsage = loaded.messages.findLast((m) => m.role === "assistant")?.usage;
    this.lastPrepare = undefined;
    this.figure = undefined;
    // "allow for this session" answers belong to the session they were given in
    this.memory = undefined;
    // The session's last request may have been composed otherwise (another model, switched
    // since in another session or another run; project context edited between runs): the
    // next one will differ, so that request is not current.
    const stale = await this.staleReason(s.id, await this.opts.store.inspectorView(s.id));
    if (stale) await this.opts.store.setPending(s.id, stale);
    for (const line of this.bad) this.hub.emit({ type: "notice", level: "warning", text: line });
    // last, so the store's queue serves the first frame's reads before this long one
    this.wholeHistory = partial ? this.loadRest(s) : Promise.resolve();
    // whoever needs the whole record awaits this and sees a failure; nobody else must crash on it
    this.wholeHistory.catch(() => undefined);
    // an estimate of the next request needs the whole record: a long one is not waited for
    // here (the first frame comes first; the figure follows with an "info" event)
    const figure = this.refreshFigure();
    if (!partial && this.parts) await figure;
  }

  /** Reads the whole record behind the first frame, in place of the newest part shown so far. */
  private async loadRest(s: Session): Promise<void> {
    try {
      const full = await this.opts.store.loadHistory(s.id);
      if (this.current !== s) return; // switched away meanwhile
      // in place: a turn's env holds this same array
      this.messages.splice(0, this.messages.length, ...full.messages);
      this.bad = badLines(full.bad);
      for (const line of this.bad) this.hub.emit({ type: "notice", level: "warning", text: line });
      this.hub.emit({ type: "session" });
      this.hub.emit({ type: "info" });
      void this.refreshFigure();
    } catch (e) {
      this.hub.emit({ type: "notice", level: "error", text: `could not read the rest of the session: ${messageOf(e)}` });
      throw e;
    }
  }

  /** Why a session's stored request no longer shows how the next one is composed, if it does not. */
  private async staleReason(sessionId: string, view: InspectorView): Promise<string | undefined> {
    if (view.state !== "current") return undefined;
    // the comparison builds the next request as a turn would (resumed sessions only)
    const { SUMMARY_REQUEST_NOTE } = await this.ready();
    const { meta } = view;
    if (meta.provider !== this.providerName || meta.model !== this.model) {
      return `model is now ${this.providerName}:${this.model} (the last request went to ${meta.provider}:${meta.model})`;
    }
    // a summary request carries none of the project context: nothing to compare
    if (meta.compaction === SUMMARY_REQUEST_NOTE) return undefined;
    const changed = await this.changedContext(sessionId, view.sections);
    return changed.length > 0 ? `project context changed since the last request (${changed.join(", ")})` : undefined;
  }

  /**
   * The context sections whose text differs between the stored request and the one a turn
   * would send now: both as the inspector captures them, compared by size and then by text
   * (an edit that keeps a file's length changes the request too).
   */
  private async changedContext(sessionId: string, stored: readonly SectionSummary[]): Promise<string[]> {
    const now = this.capture(this.nextRequest([]));
    const before = new Map(stored.filter((x) => x.kind === "context").map((x) => [x.source, x]));
    const after = new Map(now.sections.filter((x) => x.kind === "context").map((x) => [x.source, x]));
    const changed: string[] = [];
    for (const source of new Set([...before.keys(), ...after.keys()])) {
      const a = before.get(source);
      const b = after.get(source);
      if (!a || !b || a.bytes !== b.bytes || a.pages !== b.pages) {
        changed.push(source);
        continue;
      }
      for (let p = 0; p < a.pages; p++) {
        const page = await this.opts.store.capturePage(sessionId, a.index, p);
        if (page?.text !== now.pages[b.index]?.[p]) {
          changed.push(source);
          break;
        }
      }
    }
    return changed;
  }

  /**
   * The request a turn started now would send before its prompt, built as the turn builds
   * each of its requests (src/session/turn/turn.ts, buildRequest): the prepared prior history through
   * turnRequest, then the redactor. No live round yet.
   */
  private nextRequest(prior: Parameters<typeof turnRequest>[0]): Request {
    const m = this.lookupModel(this.providerName, this.model);
    const req = turnRequest(prior, [], {
      provider: this.providerName,
      model: this.model,
      system: SYSTEM_PROMPT,
      context: this.requestContext(),
      tools: this.loaded().toolSchemas(this.allTools()),
      maxOutputTokens: this.opts.maxOutputTokens ?? m.maxOutput ?? 8192,
      reasoning: this.opts.reasoning,
      vision: imageTarget(this.providerName, m.vision),
      cache: this.cacheHints(),
      ...this.apiSetting(),
    });
    return redactRequest(req, this.redactKeys);
  }

  /** A request as the inspector would capture it (nothing is stored). */
  private capture(req: Request): Capture {
    const window = this.lookupModel(this.providerName, this.model).contextWindow;
    // the capture encodes with the adapters: only after ready()
    return this.loaded().captureRequest(req, { iteration: 1, capturedAt: new Date().toISOString(), ...(window !== undefined ? { contextWindow: window } : {}) });
  }

  /**
   * Works the status line's figure out again from what the context pane shows: the stored
   * request's total while the view is current; while it is pending, the capture of the
   * request a turn would send now (the whole record, prepared as the turn prepares it).
   */
  private refreshFigure(): Promise<void> {
    // a capture saved after the turn ended (an error or a signal ends it before its capture
    // write does) comes while the app closes: nothing is worked out on a store about to close
    if (this.closing) return Promise.resolve();
    return this.inBackground(this.workOutFigure());
  }

  /** Tracks work that is not awaited by its starter, so that close() can await it. */
  private inBackground<T>(work: Promise<T>): Promise<T> {
    this.background.add(work);
    const done = (): void => void this.background.delete(work);
    work.then(done, done);
    return work;
  }

  private async workOutFigure(): Promise<void> {
    const run = ++this.figureRun;
    const session = this.current;
    // closing: the figure is shown nowhere any more, and the store must not be read again
    const superseded = (): boolean => run !== this.figureRun || session !== this.current || this.closing;
    let figure: ContextFigure | undefined;
    try {
      const view = await this.inspectorView();
      if (view.state === "current") {
        figure = { basis: "last request", ...requestEstimate(view.sections) };
      } else {
        // a failure to read the rest of the record was told when it happened; no figure then
        const whole = await this.wholeHistory.then(
          () => true,
          () => false,
        );
        if (superseded()) return;
        // built as a turn builds it, with the tools: nothing until they are in, never a guess
        // parts that never load (their import failed) must not hold close() up
        const parts = this.parts ?? (await Promise.race([this.partsIn, this.closeStarted]));
        if (superseded() || !parts) return;
        if (whole) {
          const prepared = await parts.prepare(this.env(), this.messages.length);
          if (superseded()) return;
          figure = { basis: "next request", ...requestEstimate(this.capture(this.nextRequest(prepared.messages)).sections) };
        }
      }
    } catch (e) {
      if (superseded()) return;
      this.hub.emit({ type: "notice", level: "warning", text: `The context figure could not be worked out: ${messageOf(e)}` });
    }
    if (superseded()) return;
    this.figure = figure;
    this.hub.emit({ type: "info" });
  }

  /** problems found while loading the session (bad rows), for headless mode to print */
  loadProblems(): readonly string[] {
    return [...this.startNotes, ...this.bad];
  }

  setApi(api: AppInfo["api"]): void {
    this.apiInfo = api;
    this.hub.emit({ type: "info" });
  }

  info(): AppInfo {
    const m = this.lookupModel(this.providerName, this.model);
    const keyProblem = this.keyProblem();
    return {
      provider: this.providerName,
      model: this.model,
      baseUrl: this.baseUrlFor(this.providerName),
      ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
      vision: m.vision,
      permission: this.opts.permission,
      compaction: this.opts.compaction,
      reasoning: this.opts.reasoning,
      // the adapters send no reasoning setting to a model the catalog knows takes none
      ...(this.opts.reasoning !== "off" && supportsReasoning(this.model) === false
        ? { reasoningNote: `reasoning not available for ${this.model}` }
        : {}),
      workspace: this.opts.workspace,
      dbPath: this.opts.store.path,
      ...(keyProblem ? { keyProblem } : {}),
      ...(this.apiInfo ? { api: this.apiInfo } : {}),
    };
  }

  session(): Session {
    return this.current;
  }

  history(): readonly StoredMessage[] {
    return this.messages;
  }

  busy(): boolean {
    return this.running !== undefined || this.compacting !== undefined || this.awaitingParts || this.rewinding;
  }

  /** A fork of `s` with its whole record (the original stays as it is). */
  private async forkAtEnd(s: Session): Promise<Session> {
    return this.opts.store.fork(s.id, (await this.opts.store.promptCount(s.id)) + 1);
  }

  /** What a rewind works with: the store, the checkpoints, the workspace's real path. */
  private async rewindDeps(): Promise<import("./rewind.js").RewindDeps> {
    await this.ready();
    return { store: this.opts.store, checkpoints: this.checkpoints(), root: await fs.realpath(this.opts.workspace) };
  }

  private refuseWhileBusy(what: string): void {
    if (this.busy()) throw new Error(`a turn is running; press Esc first, then ${what}`);
  }

  readonly rewind: RewindControl = {
    prompts: async () => {
      await this.wholeHistory;
      return (await import("./rewind.js")).promptChoices(this.messages);
    },
    preview: async (n, mode) => {
      this.refuseWhileBusy("rewind");
      await this.wholeHistory;
      const r = await import("./rewind.js");
      return r.previewRewind(await this.rewindDeps(), this.current, this.messages, n, mode);
    },
    diff: async (item) => {
      const deps = await this.rewindDeps();
      return deps.checkpoints?.diff(deps.root, item);
    },
    run: async (preview, onItem) => {
      this.refuseWhileBusy("rewind");
      if (preview.session.id !== this.current.id) throw new Error("the session changed since this rewind was planned; plan it again");
      const r = await import("./rewind.js");
      const deps = await this.rewindDeps();
      this.rewinding = true;
      let done: import("./rewind.js").RewindDone;
      try {
        done = await r.runRewind(deps, preview, onItem);
      } finally {
        this.rewinding = false;
      }
      if (done.restored.length > 0) {
        // AGENTS.md and the project's facts may be what was restored
        this.context = await loadProjectContext(this.opts.workspace, this.redactKeys);
        await this.markPending(r.WORKSPACE_RESTORED);
      }
      if (done.fork) {
        await this.load(done.fork);
        this.hub.emit({ type: "session" });
      }
      this.hub.emit({ type: "info" });
      return done;
    },
    fork: async () => {
      this.refuseWhileBusy("fork");
      if (!this.stored) throw new Error("nothing to fork yet: this session has no message");
      await this.wholeHistory;
      const f = await this.forkAtEnd(this.current);
      await this.load(f);
      this.hub.emit({ type: "session" });
      this.hub.emit({ type: "info" });
      return f;
    },
  };

  private askPermission = (req: PermissionRequest): Promise<PermissionAnswer> => {
    if (this.opts.headless || !this.hub.canAsk()) return Promise.resolve("deny");
    return new Promise((resolve) => {
      let answered = false;
      this.hub.emit({ type: "state", state: "permission", detail: req.tool });
      this.hub.emit({
        type: "permission",
        req,
        answer: (a) => {
          // a second answer (two front ends, a double key) must not run the tool twice
          if (answered) return;
          answered = true;
          this.hub.emit({ type: "state", state: "tool", detail: req.tool });
          resolve(a);
        },
      });
    });
  };

  /** The configured keys out of anything on its way into the record or a request (read at
   * each call: /reload may bring new keys). */
  private redactKeys = redactorFor(() => [...Object.values(this.opts.credentials.keys), ...(this.opts.credentials.secrets ?? []), ...(this.ext?.secrets() ?? [])]);

  /** Prompt caching for this session's requests: keyed by the session (OpenAI's
   * prompt_cache_key), with the configured TTL (Anthropic's breakpoints). */
  private cacheHints(): RequestCache {
    return { key: this.current.id, ttl: this.opts.cacheTtl ?? "5m" };
  }

  /** OpenAI's wire shape for the current provider and base URL (create.ts, openaiApi): put
   * into every request, which picks both the encoding captured and the endpoint called. */
  private apiSetting(): { api?: OpenAIApi } {
    return this.providerName === "openai" ? { api: openaiApi(this.baseUrlFor("openai"), this.opts.api) } : {};
  }

  private currentProvider(): Provider {
    this.loaded();
    if (!this.provider) this.buildProvider();
    return this.provider as Provider;
  }

  /** what a turn works with; only after ready() (the provider, tools and permission memory come from the parts) */
  private env(): TurnEnv {
    const m = this.lookupModel(this.providerName, this.model);
    const env: TurnEnv = {
      store: this.opts.store,
      sessionId: this.current.id,
      history: this.messages,
      provider: this.currentProvider(),
      providerName: this.providerName,
      model: this.model,
      vision: imageTarget(this.providerName, m.vision),
      ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
      maxOutputTokens: this.opts.maxOutputTokens ?? m.maxOutput ?? 8192,
      reasoning: this.opts.reasoning,
      cache: this.cacheHints(),
      ...this.apiSetting(),
      system: SYSTEM_PROMPT,
      context: this.requestContext(),
      tools: this.allTools(),
      toolCtx: {
        workspace: this.opts.workspace,
        policy: this.opts.permission,
        askPermission: this.askPermission,
        redact: this.redactKeys,
        ...(this.opts.headless
          ? { unattended: "albedo-tui runs headless (-p) with --permission ask and no one can be asked; rerun with --permission auto to allow this" }
          : {}),
      },
      memory: (this.memory ??= new (this.loaded().PermissionMemory)()),
      redact: this.redactKeys,
      compaction: {
        strategy: this.opts.compaction,
        threshold: this.opts.compactionThreshold,
        keepRounds: this.opts.keepToolRounds,
        ...(this.opts.microcompactStep !== undefined ? { step: this.opts.microcompactStep } : {}),
      },
      tokenMethod: methodFor(this.providerName, this.model),
      events: this.hub,
      ...(this.lastUsage ? { previousUsage: this.lastUsage } : {}),
    };
    return env;
  }

  async submit(text: string, images: ImageBlock[] = []): Promise<{ sent: boolean }> {
    const outcome = await this.runPrompt(text, images);
    return { sent: !outcome.unsent };
  }

  /** runs one turn and reports how it ended (headless mode needs the outcome) */
  async runPrompt(text: string, images: ImageBlock[] = []): Promise<TurnOutcome> {
    // headless: the servers' tools belong to the one turn there is, so it waits for their
    // start (each bounded by its startup timeout) before its requests are built, and their
    // arrival is no change to that turn's view; the screen never waits for them
    if (this.opts.headless && this.ext.hasServers() && !this.busy()) await this.ext.start();
    // a prompt sent before the parts are in waits for them, counted as busy meanwhile
    // (nothing below awaits before `running` is set)
    if (!this.parts && !this.busy()) {
      this.awaitingParts = true;
      // Esc meanwhile (interrupt()) takes the prompt back: nothing is stored or sent yet
      const waiting = new AbortController();
      this.abort = waiting;
      try {
        // Esc answers at once; the parts go on loading for the next prompt
        await new Promise<void>((resolve, reject) => {
          waiting.signal.addEventListener("abort", () => resolve(), { once: true });
          this.ready().then(() => resolve(), reject);
        });
      } catch (e) {
        // ready() has said so in a notice; the next prompt tries again
        return { ok: false, error: `Could not load what a turn needs: ${messageOf(e)}`, finalText: "" };
      } finally {
        this.awaitingParts = false;
        if (this.abort === waiting) this.abort = undefined;
      }
      if (waiting.signal.aborted) {
        const note = "Interrupted before it was sent: nothing was stored or sent.";
        this.hub.emit({ type: "notice", level: "info", text: note });
        return { ok: false, interrupted: true, unsent: true, error: note, finalText: "" };
      }
    }
    const busy = this.running || this.awaitingParts
      ? "A turn is already running; press Esc to interrupt it first."
      : this.compacting
        ? "A /compact is running; wait for it, or press Esc to stop it."
        : undefined;
    if (busy) {
      this.hub.emit({ type: "notice", level: "warning", text: busy });
      return { ok: false, error: busy, finalText: "" };
    }
    const problem = this.keyProblem();
    if (problem) {
      this.hub.emit({ type: "notice", level: "error", text: problem });
      return { ok: false, error: problem, finalText: "" };
    }
    const blocks: Block[] = [...images];
    if (text) blocks.push({ type: "text", text });
    if (blocks.length === 0) return { ok: true, finalText: "" };
    // The turn counts as running from here, before the first await (the title): a second
    // prompt arriving meanwhile must be refused, not run alongside on the same history.
    const abort = new AbortController();
    this.abort = abort;
    const env = this.env();
    let checkpoint: TurnCheckpoint | undefined;
    const turn = async (): Promise<TurnOutcome> => {
      await this.wholeHistory;
      const title = text ? this.redactKeys(text).replace(/\s+/g, " ").trim().slice(0, 60) : "";
      await this.ensureStored(title);
      env.sessionId = this.current.id; // the same id, unless the draft's clashed and the store chose another
      if (!this.current.title && title) {
        await this.opts.store.setTitle(this.current.id, title);
        this.current.title = title;
      }
      checkpoint = await this.beginCheckpoint(env);
      return this.loaded().runTurn(env, blocks, abort.signal);
    };
    const run = turn().catch((e: unknown): TurnOutcome => {
      // a store failure (busy, closed…) already reads as a sentence the person can act on
      const msg = e instanceof StoreError ? e.message : `Internal error: ${messageOf(e)}`;
      this.hub.emit({ type: "notice", level: "error", text: msg });
      return { ok: false, error: msg, finalText: "" };
    });
    this.running = run;
    const outcome = await run;
    if (outcome.usage) this.lastUsage = outcome.usage;
    if (outcome.prepared) this.lastPrepare = outcome.prepared;
    try {
      // what the turn's commands left running in the background ends with the turn
      await stopToolProcesses({ owner: abort.signal });
    } catch (e) {
      this.hub.emit({ type: "notice", level: "warning", text: `Could not stop what the turn's commands left running: ${messageOf(e)}` });
    }
    try {
      // after its processes are stopped: nothing of the turn changes the workspace any more
      await this.endCheckpoint(checkpoint);
    } finally {
      // whatever happened above, the next prompt must not be refused as "a turn is running"
      this.running = undefined;
      this.abort = undefined;
    }
    await this.pendingAgain();
    this.hub.emit({ type: "state", state: "idle" });
    this.hub.emit({ type: "turn_end", ok: outcome.ok, ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.interrupted ? { interrupted: true } : {}) });
    this.hub.emit({ type: "info" });
    // the error quotes the provider or a server: headless mode prints it
    return outcome.error ? { ...outcome, error: this.redactKeys(outcome.error) } : outcome;
  }

  interrupt(): void {
    this.abort?.abort();
  }

  private async markPending(reason: string): Promise<void> {
    // closing: nothing more is written; the next run that opens the session weighs the
    // stored request against what it would send (staleReason)
    if (this.closing) return;
    if (this.busy()) this.pendingAfterRun = reason;
    // a draft has sent nothing yet: its view is pending by nature
    if (this.stored) await this.opts.store.setPending(this.current.id, reason);
    this.hub.emit({ type: "capture" });
  }

  /** After a turn or /compact: a change made while it ran leaves the view pending. */
  private async pendingAgain(): Promise<void> {
    const reason = this.pendingAfterRun;
    if (reason === undefined) return;
    this.pendingAfterRun = undefined;
    await this.markPending(reason).catch((e: unknown) => {
      this.hub.emit({ type: "notice", level: "warning", text: `The context view could not be marked pending: ${messageOf(e)}` });
    });
  }

  async newSession(): Promise<void> {
    if (this.busy()) throw new Error("a turn is running; press Esc first");
    await this.loadDraft();
    this.hub.emit({ type: "session" });
    this.hub.emit({ type: "info" });
  }

  /**
   * /model with no argument: the catalog's models for each configured provider (the one in
   * use, and another with a key or base URL of its own) and what its server lists. A server
   * that cannot list them gives a line saying why; the catalog's are there all the same.
   */
  async listModels(): Promise<ModelChoices> {
    const creds = this.opts.credentials;
    const others = (["anthropic", "openai"] as const).filter((p) => p !== this.providerName && (creds.keys[p] || creds.baseUrls[p]));
    const providers = await Promise.all(
      [this.providerName, ...others].map(async (provider): Promise<ProviderModels> => {
        const baseUrl = this.baseUrlFor(provider);
        const base: ProviderModels = { provider, baseUrl, catalog: catalogModels(provider) };
        const apiKey = creds.keys[provider];
        if (!apiKey && keyRequired(provider, baseUrl)) return { ...base, error: "not listed from the server: no API key" };
        try {
          const { fetchModels } = await import("../../provider/models.js");
          const got = await fetchModels({ provider, baseUrl, ...(apiKey ? { apiKey } : {}) });
          return { ...base, served: got.models, ...(got.more ? { more: true } : {}) };
        } catch (e) {
          const why = e instanceof (await import("../../provider/models.js")).ModelsError ? e.message : `the model list failed: ${messageOf(e)}`;
          return { ...base, error: this.redactKeys(why) };
        }
      }),
    );
    return { current: { provider: this.providerName, model: this.model }, providers };
  }

  listSessions(): Promise<Session[]> {
    return this.opts.store.listSessions({ limit: 200 });
  }

  async switchSession(id: string): Promise<void> {
    if (this.busy()) throw new Error("a turn is running; press Esc first");
    const problem = sessionIdProblem(id);
    if (problem) throw new UnknownSessionError(problem);
    const s = await this.opts.store.getSession(id);
    if (!s) throw new UnknownSessionError(`no session with id ${quoteId(id)}`);
    await this.load(s);
    this.hub.emit({ type: "session" });
    this.hub.emit({ type: "info" });
  }

  async setModel(spec: string): Promise<string> {
    const trimmed = spec.trim();
    if (!trimmed) return `Model: ${this.providerName}:${this.model}. Use /model NAME or /model anthropic:NAME / openai:NAME.`;
    // decided (or refused) before anything changes: a refused pair leaves the model as it was
    const { provider, model, said } = this.chooseModel(trimmed);
    this.providerName = provider;
    this.model = model;
    this.buildProvider();
    this.lastUsage = undefined;
    this.lastPrepare = undefined;
    await this.markPending(`model switched to ${provider}:${model}`);
    this.hub.emit({ type: "info" });
    const info = this.lookupModel(provider, model);
    const window = info.contextWindow ? `${formatInt(info.contextWindow)} tokens` : "unknown";
    const key = this.keyProblem();
    // a model that cannot see gets markers for every image: nothing to single out then
    const big = info.vision ? this.imagesNotTaken(targetForRequest(imageTarget(provider, true), this.messages)) : 0;
    const images = big
      ? ` ${big} image${big === 1 ? "" : "s"} in this session ${big === 1 ? "is" : "are"} more than ${provider} accepts: ${big === 1 ? "it goes" : "they go"} as a note saying so, not as ${big === 1 ? "an image" : "images"} (switch back to send ${big === 1 ? "it" : "them"}).`
      : "";
    return `Model: ${provider}:${model} (context window ${window}${info.known ? "" : ", not in the catalog"}).${said ? " " + said : ""}${key ? " " + key : ""}${images}`;
  }

  /**
   * Which provider serves the model /model names. "provider:NAME" says it; a bare NAME goes to
   * the provider whose model the catalog says it is (before, "/model gpt-4o" on Anthropic
   * became anthropic:gpt-4o, which Anthropic's API refuses at the next prompt), or stays with
   * the current provider when the catalog does not know it (local servers name their own).
   * A pair that cannot work is refused: a model the catalog lists as one provider's, named for
   * the other provider's own API. Through any other base URL (a gateway may serve both
   * families in either shape) the pair is allowed and said so.
   */
  private chooseModel(spec: string): { provider: ProviderName; model: string; said?: string } {
    const explicit = /^(anthropic|openai):(.*)$/i.exec(spec);
    if (explicit) {
      const provider = explicit[1]!.toLowerCase() as ProviderName;
      const model = explicit[2]!.trim() || defaultModel(provider);
      const family = familyOf(model);
      if (family === undefined || family === provider) return { provider, model };
      const url = this.baseUrlFor(provider);
      if (isOwnApi(provider, url)) {
        throw new ModelChoiceError(
          `${provider}:${model} cannot work: ${model} is ${PROVIDER_LABEL[family]}'s model (by the catalog), and ${PROVIDER_LABEL[provider]}'s API at ${url} does not serve it. The model stays ${this.providerName}:${this.model}; use /model ${family}:${model}.`,
        );
      }
      return { provider, model, said: `The catalog lists ${model} as ${PROVIDER_LABEL[family]}'s; it is sent in the ${provider} API shape to ${url}, as a gateway would take it.` };
    }
    // a provider's name alone: its default model
    const alone = spec.toLowerCase();
    if (alone === "anthropic" || alone === "openai") return { provider: alone, model: defaultModel(alone) };
    const family = familyOf(spec);
    if (family === undefined || family === this.providerName) return { provider: this.providerName, model: spec };
    const was = this.providerName;
    const wasUrl = this.baseUrlFor(was);
    // through a gateway the old provider might have served it too: say how to stay there
    const stay = isOwnApi(was, wasUrl) ? "" : ` (/model ${was}:${spec} sends it to ${wasUrl} instead.)`;
    return { provider: family, model: spec, said: `Provider switched from ${was} to ${family}: the catalog lists ${spec} as ${PROVIDER_LABEL[family]}'s.${stay}` };
  }

  /** how many stored images the target cannot take (attached under another provider), by
   * the rule each request applies (replay/replay.ts, unseenReason) */
  private imagesNotTaken(target: ImageTarget): number {
    let n = 0;
    for (const m of this.messages) for (const b of m.blocks) if (b.type === "image" && unseenReason(b, target)) n++;
    return n;
  }

  /**
   * Re-reads the project context (instruction files, workspace facts) and, with a config, the
   * settings that can change in a running session: permission, compaction, reasoning, the
   * API keys and the per-provider base URLs. The answer names all of them and what changed
   * (before, it named only the context items, as if the keys were not reloaded).
   */
  async reload(): Promise<string> {
    // the first reading of the project context comes with the parts: this one follows it
    await this.ready();
    const before = this.context;
    this.context = await loadProjectContext(this.opts.workspace, this.redactKeys);
    const changed = changedItems(before, this.context);
    let settings: string | undefined;
    try {
      if (this.opts.reloadConfig) {
        const was: Reloadable = { permission: this.opts.permission, compaction: this.opts.compaction, reasoning: this.opts.reasoning, credentials: this.opts.credentials };
        const fresh = await this.opts.reloadConfig();
        if (fresh.permission) this.opts.permission = fresh.permission;
        if (fresh.compaction) this.opts.compaction = fresh.compaction;
        if (fresh.reasoning) this.opts.reasoning = fresh.reasoning;
        if (fresh.credentials) this.opts.credentials = fresh.credentials;
        this.buildProvider();
        settings = settingsChanges(was, this.opts);
      }
    } finally {
      // the project context is already re-read even when the config is not
      await this.markPending(`project context reloaded (/reload)${changed.length > 0 ? `: ${changed.join(", ")} changed` : ""}`);
    }
    const mcp = await this.ext.reload().catch((e: unknown) => `MCP: not reloaded: ${messageOf(e)}`);
    this.hub.emit({ type: "info" });
    const context = `Reloaded the project context: ${this.context.map((c) => c.source).join(", ")}${changed.length > 0 ? ` (${changed.join(", ")} changed)` : " (unchanged)"}.`;
    const withMcp = this.ext.hasServers() ? ` ${mcp}` : "";
    if (settings === undefined) return context + withMcp;
    const from = this.opts.configFile ? `the config (${this.opts.configFile}) and the environment` : "the config and the environment";
    return `${context} Reloaded from ${from}: permission, compaction, reasoning, API keys and per-provider base URLs (${settings}). The model and --base-url stay as they are; /model switches.${withMcp}`;
  }

  async compact(): Promise<string> {
    if (this.running || this.awaitingParts) return "A turn is running; compact after it ends.";
    if (this.compacting) return "A /compact is already running.";
    const problem = this.keyProblem();
    if (problem) return problem;
    const abort = new AbortController();
    this.abort = abort;
    /** what the summary changed, when one was stored */
    let summarised: string | undefined;
    const work = async (): Promise<string> => {
      try {
        await this.wholeHistory;
        const { summarize } = await this.ready();
        const s = await summarize(this.env(), this.messages.length, abort.signal, { force: true, ...(this.lastUsage ? { providerUsage: this.lastUsage } : {}) });
        if (s.usage) this.lastUsage = s.usage;
        summarised = s.said;
        return s.said ? `Compaction: ${s.said}.` : "Nothing to compact yet: the history is short.";
      } catch (e) {
        return `Compaction failed: ${messageOf(e)}`;
      }
    };
    // busy() holds while it runs: a prompt sent meanwhile would race it on the same history
    const run = work();
    this.compacting = run;
    try {
      return await run;
    } finally {
      this.compacting = undefined;
      this.abort = undefined;
      // The last capture is the summary request, and the next request carries the summary
      // instead of the history it replaced: the view goes pending, and the status line and
      // the pane give the estimate of that next request (docs/architecture.md, Design rules).
      if (summarised) {
        await this.markPending(`history compacted by /compact (${summarised}): the next request carries the summary`).catch((e: unknown) => {
          this.hub.emit({ type: "notice", level: "warning", text: `The context view could not be marked pending: ${messageOf(e)}` });
        });
      }
      await this.pendingAgain();
      this.hub.emit({ type: "state", state: "idle" });
      this.hub.emit({ type: "info" });
    }
  }

  async exportSession(format: "md" | "json"): Promise<string> {
    await this.wholeHistory;
    // the stored row, not the copy taken when the session was opened: every stored message
    // moves its updated_at (before, the file said Updated: equal to Created)
    const session = (await this.opts.store.getSession(this.current.id)) ?? this.current;
    const file = path.join(this.opts.workspace, `albedo-${session.id}.${format === "md" ? "md" : "json"}`);
    const text = format === "md" ? exportMarkdown(session, this.messages) : exportJson(session, this.messages);
    await fs.writeFile(file, text);
    return file;
  }

  loadImage(file: string): Promise<ImageBlock> {
    return loadImage(path.resolve(this.opts.workspace, file), this.providerName);
  }

  contextStatus(): ContextStatus {
    const m = this.lookupModel(this.providerName, this.model);
    const off = autoCompactionOff(m.contextWindow);
    const prep = this.lastPrepare;
    const did = prep && prep.note !== "none" ? prep.note : undefined;
    const compaction = [`${this.opts.compaction}`, did, off].filter(Boolean).join(" · ");
    const f = this.figure;
    return {
      ...(f ? { figure: f } : {}),
      estimate: f ? formatFigure(f.basis, f) : "",
      ...(m.contextWindow ? { window: m.contextWindow } : {}),
      compaction,
    };
  }

  inspectorView(): Promise<InspectorView> {
    if (!this.stored) return Promise.resolve({ state: "pending", reason: NO_REQUEST_YET, since: this.current.createdAt });
    return this.opts.store.inspectorView(this.current.id);
  }

  inspectorPage(section: number, page: number): Promise<Page | undefined> {
    if (!this.stored) return Promise.resolve(undefined);
    return this.opts.store.capturePage(this.current.id, section, page);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.closeBegun();
    this.abort?.abort();
    if (this.running) await this.running.catch(() => undefined);
    if (this.compacting) await this.compacting.catch(() => undefined);
    // every MCP server's process group ends with the app
    await this.ext.close().catch(() => undefined);
    // what runs on the store unawaited ends before it closes; nothing new starts meanwhile
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await this.opts.store.close();
  }
}
