// The running app: one session at a time over one store, a provider, tools and the turn loop.
// Both front ends (the screen and headless -p) drive it through the Controller interface.
import { CostMemo, type SessionCost } from "./cost.js";
import { ShownRequest, type AutoCount } from "./shown-request.js";
import type { ProviderCounts } from "../../provider/types.js";
import { formatDollars } from "../../provider/prices.js";
import { SandboxSetup } from "./sandbox-setup.js";
import type { PermissionPolicy } from "../../tools/types.js";
import { withPlanItem } from "./permission-mode.js";
import { limitCoreDumps } from "../../config/core-limit.js";
import path from "node:path";
import fs from "node:fs/promises";
import type { Block, ImageBlock, Session, SessionInfo, StoredMessage, TextBlock } from "../../record/types.js";
import { chooseModel, imagesNotTaken } from "./model-choice.js";
import type { ModelChoices } from "../../provider/models.js";
import { StoreError } from "../store/store.js";
import { EventHub, type Listener, type SubscribeOptions } from "../turn/events.js";
import type { AppInfo, ContextStatus, Controller, RewindControl } from "./types.js";
import { loadProjectContext } from "./project-context.js";
import { redactorFor } from "../../config/secrets.js";
import type { TurnEnv, TurnOutcome } from "../turn/turn.js";
import { turnRequest } from "../../replay/request.js";
import { imageTarget, targetForRequest } from "../../replay/replay.js";
import { loadImage } from "./images.js";
import { exportJson, exportMarkdown } from "./export.js";
import type { Capture, InspectorView, Page } from "../../context/types.js";
import { refusedPrompt } from "./pastes.js";
import { promptTooLarge } from "../../compaction/window.js";
import { messageOf } from "../../record/errors.js";
import { findSession, sessionNotFound } from "../store/find-session.js";
import { ExtensionManager } from "../../extensions/manager.js";
import type { McpControl, PromptOptions } from "./types.js";
import { reloadSettings, type AppOptions } from "./options.js";
import { baseUrls, ProviderInUse } from "./provider-setup.js";
import { appInfo } from "./app-info.js";
import { changedItems, PendingMarks, staleReason } from "./staleness.js";
import { captureNext, turnEnv, type Composition } from "./turn-env.js";
import { permissionAsker } from "./ask-permission.js";
import { SessionFigures } from "./figures.js";
import { TurnParts, type Parts } from "./turn-parts.js";
import { Activity } from "./activity.js";
import { SteerInbox } from "../turn/steer-inbox.js";
import { Alongside } from "./alongside.js";
import { listModels } from "./model-list.js";
import { OpenSession } from "./open-session.js";
import {
  BUSY,
  compactAnswer,
  forkAnswer,
  headlessHeld,
  modelAnswer,
  modelNow,
  NOTHING_TO_FORK,
  PENDING,
  readOnlyRefusal,
  reloadAnswer,
  settingsChanges,
} from "./sentences.js";
import { SessionLease, thisProcess } from "./session-lease.js";
import { withPlaces } from "../store/open-marks.js";
import { BackgroundShells } from "../../tools/background.js";
import { shellsFolder } from "./shells.js";
import type { StoredSummary } from "../store/types.js";
import { isPlainPrompt } from "../../compaction/summary.js";
import type { Checkpoints } from "../checkpoints/checkpoints.js";
import type { TurnCheckpoint } from "../checkpoints/turn.js";
import type { RewindDeps, RewindDone } from "./rewind.js";
import { BUILTIN_COMMANDS, Workflow } from "./workflow.js";
import { stopHookContinuation } from "./stop-hook.js";
import { permissionsList, type PermissionsList } from "./permissions-list.js";

export type { AppOptions, AppSettings } from "./options.js";

export class UnknownSessionError extends Error {}

/** headless mode without the key it needs: nothing is created, the sentence says what to set */
export class MissingKeyError extends Error {}

/** headless mode asked for a session open in another process: nothing is sent */
export class SessionHeldError extends Error {}

export class App implements Controller {
  /** every notice, retry reason and turn error passes the one redactor on its way out */
  private readonly hub = new EventHub((t) => this.redactKeys(t));
  /** set when close() begins: from then on nothing new is started on the store */
  private closing = false;
  private closeBegun!: () => void;
  /** settles when close() begins: what waits for something that may never come stops waiting */
  private readonly closeStarted = new Promise<void>((resolve) => (this.closeBegun = resolve));
  /** store work nobody awaits (figure refreshes, pending marks): close() awaits it before the store closes */
  private readonly background = new Set<Promise<unknown>>();
  /** the session open now: its row and its record as read (open-session.ts) */
  private readonly open: OpenSession;
  /** where the open session is held: here, or elsewhere and read-only here (session-lease.ts) */
  private readonly lease: SessionLease;
  /** the model in use and its provider client (provider-setup.ts) */
  private readonly inUse: ProviderInUse;
  /** the adapters, the tools and the turn, with the project context (turn-parts.ts) */
  private readonly parts: TurnParts;
  /** what runs now, one at a time: a turn, a /compact, or a prompt waiting for the parts (activity.ts) */
  private readonly activity: Activity;
  /** the context view's pending marks (staleness.ts) */
  private readonly pending: PendingMarks;
  /** the status line's figures, and what the last response and compaction reported (figures.ts) */
  private readonly figures: SessionFigures;
  private apiInfo: AppInfo["api"];
  /** MCP servers (src/extensions/): their tools and instructions join every request */
  private readonly ext: ExtensionManager;
  /** how a tool's permission question reaches a person (ask-permission.ts) */
  private readonly askPermission: ReturnType<typeof permissionAsker>;
  /** the turns' file checkpoints, made with the parts (undefined: off, or not made yet) */
  private cps: Checkpoints | undefined;
  /** a rewind killed half-way, cleaned up once the parts are in */
  private recovered: Promise<void> | undefined;
  /** what was found at start beside the session's own problems (a rewind that was killed) */
  private readonly startNotes: string[] = [];
  /** where the session's commands run (sandbox-setup.ts) */
  private readonly sandbox: SandboxSetup;
  private sandboxSaid: Promise<void> | undefined;
  /** a rewind runs: it changes the workspace and the session, so it excludes turns */
  private rewinding = false;
  /** custom commands, skills, hooks, /init and the todo tool (workflow.ts) */
  readonly workflow: Workflow;
  /** messages steered into the running turn (turn/steer.ts) */
  private readonly steering = new SteerInbox();
  /** the draft, the workspace's prompt history, a turn that outlives its terminal (alongside.ts) */
  readonly alongside: Alongside;


  subscribe(fn: Listener, opts?: SubscribeOptions): () => void {
    return this.hub.subscribe(fn, opts);
  }

  private constructor(private readonly opts: AppOptions) {
    this.workflow = new Workflow({
      workspace: opts.workspace,
      configFolder: opts.configFile ? path.dirname(opts.configFile) : undefined,
      reserved: BUILTIN_COMMANDS,
      headless: opts.headless,
      events: this.hub,
      secrets: () => [...Object.values(this.opts.credentials.keys), ...(this.opts.credentials.secrets ?? []), ...(this.ext?.secrets() ?? [])],
      redact: (t) => this.redactKeys(t),
    });
    this.parts = new TurnParts({
      parts: () => import("./parts.js"),
      context: () => {
        this.workflow.load();
        return loadProjectContext(opts.workspace, this.redactKeys);
      },
      events: this.hub,
    });
    this.inUse = new ProviderInUse(opts, this.parts);
    this.alongside = new Alongside({
      dir: opts.alongsideDir,
      workspace: opts.workspace,
      hub: this.hub,
      redact: (t) => this.redactKeys(t),
      session: () => ({ id: this.open.current.id, stored: this.open.storedId() !== undefined }),
      busy: () => this.busy(),
      interrupt: () => this.interrupt(),
      detached: () => this.lease.detached(this.open.current),
    });
    const ask = permissionAsker(this.hub, opts.headless);
    // after a hang-up, questions are answered by the "hangup" setting (alongside.ts)
    this.askPermission = (req) => this.alongside.ask(req, ask);
    this.sandbox = new SandboxSetup({ sandbox: opts.sandbox, network: opts.network, workspace: opts.workspace, dbPath: opts.store.path, configFile: opts.configFile });
    this.activity = new Activity(this.hub);
    this.open = new OpenSession({
      store: opts.store,
      events: this.hub,
      workspace: opts.workspace,
      headless: opts.headless,
      onWhole: () => void this.figures.refresh(),
    });
    this.lease = new SessionLease({ store: opts.store, events: this.hub, background: (work) => this.inBackground(work) });
    this.pending = new PendingMarks({
      store: opts.store,
      events: this.hub,
      busy: () => this.busy(),
      storedId: () => this.open.storedId(),
      closing: () => this.closing,
    });
    this.figures = new SessionFigures({
      events: this.hub,
      session: () => this.open.current,
      view: () => this.inspectorView(),
      wholeHistory: () => this.open.wholeHistory,
      partsLoaded: () => this.parts.ifLoaded() !== undefined,
      partsIn: this.parts.arrived,
      prepare: () => this.parts.loaded().prepare(this.env(), this.open.messages.length),
      captureNext: (prior) => this.captureNext(prior),
      closing: () => this.closing,
      closeStarted: this.closeStarted,
      background: (work) => this.inBackground(work),
    });
    this.ext = new ExtensionManager({
      workspace: opts.workspace,
      ...(opts.configFile ? { configFile: opts.configFile } : {}),
      headless: opts.headless,
      // a server started, stopped, or changed its tools: the next request differs
      onChange: (reason) => {
        void this.inBackground(this.pending.markOrWarn(reason));
        this.hub.emit({ type: "info" });
      },
      onNotice: (level, text) => this.hub.emit({ type: "notice", level, text }),
      commandSandbox: async () => {
        await this.sandbox.ready();
        return this.sandbox.forCommands();
      },
      redact: (t) => this.redactKeys(t),
    });
  }

  /** the session's background commands (bash run_in_background; /shells) */
  readonly shells = new BackgroundShells(shellsFolder);

  /** MCP servers for the front ends: the screen starts them after its first frame */
  readonly mcp: McpControl = {
    start: () => {
      if (this.ext.hasServers()) void this.ext.start();
    },
    describe: () => this.ext.describe(),
    approve: () => this.ext.approveProject(),
    status: () => this.ext.status(),
  };

  /** the provider's model list (provider-setup.ts, learn), then the status line again */
  private learnModels(): Promise<void> {
    return this.inUse.learn().then(() => this.hub.emit({ type: "info" }));
  }

  /** where commands run (the sandbox's probe, a notice when unsandboxed), and no core files:
   * the screen asks before the frame that shows the session (startNotices), the turn's parts
   * at the first key */
  sayWhereCommandsRun(): Promise<void> {
    limitCoreDumps();
    // the workspace's commands, skills and hooks are read now (a few small files), so that
    // what is skipped or waits for approval is said in the session's frame (startNotices),
    // not at the first key; the parts' load reads them again without saying it twice
    if (!this.workflowRead) {
      this.workflowRead = true;
      this.workflow.load();
    }
    return (this.sandboxSaid ??= this.sayUnsandboxed());
  }
  private workflowRead = false;

  /** Loads the turn's parts and reads the project context (turn-parts.ts); the screen calls this
   * at the person's first key (ui/first-key.ts), and create() before it returns otherwise. */
  ready(): Promise<Parts> {
    void this.learnModels();
    return this.parts.ready().then(async (p) => {
      await (this.recovered ??= this.recoverRewind());
      // the probe runs alongside; a prompt waits for it (runPrompt), so no command runs
      // before it is known where commands run
      this.sandboxSaid ??= this.sayUnsandboxed();
      limitCoreDumps();
      // the status line's context figure needs the parts: it can be worked out now
      this.hub.emit({ type: "info" });
      return p;
    });
  }

  /** The run's checkpoints, made once the parts are in; undefined without a folder for them. */
  checkpoints(): Checkpoints | undefined {
    const dir = this.opts.checkpointDir;
    const parts = this.parts.ifLoaded();
    if (dir === undefined || !parts) return undefined;
    const c = this.opts.checkpoints;
    this.cps ??= new parts.Checkpoints({
      dir,
      limits: { ...(c?.maxFileBytes ? { maxFileBytes: c.maxFileBytes } : {}), ...(c?.maxTotalBytes ? { maxTotalBytes: c.maxTotalBytes } : {}), ...(c?.maxFiles ? { maxFiles: c.maxFiles } : {}) },
      exclude: [this.opts.store.path],
      redact: this.redactKeys,
    });
    return this.cps;
  }

  /** bubblewrap probed once; when it does not work, said once (sandbox-setup.ts) */
  private async sayUnsandboxed(): Promise<void> {
    const note = await this.sandbox.ready();
    if (note) {
      this.startNotes.push(note);
      this.hub.emit({ type: "notice", level: "warning", text: note });
    }
    // the status line says where commands run
    this.hub.emit({ type: "info" });
  }

  /** A rewind of this workspace that was killed left temporary files and its journal: they
   * go, and the person is told how to finish it. Old checkpoints are pruned behind it. */
  private async recoverRewind(): Promise<void> {
    try {
      const cps = this.checkpoints();
      if (!cps) return;
      // at most once a day, and never in the way of a turn
      void this.inBackground(cps.prune(this.opts.checkpoints?.keepDays).catch(() => undefined));
      const note = await cps.recover(await fs.realpath(this.opts.workspace));
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
    const prompt = this.open.messages.filter(isPlainPrompt).length + 1;
    const cp = cps.begin(this.open.current.id, prompt, await fs.realpath(this.opts.workspace));
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
        this.hub.emit({ type: "notice", level: "warning", text: `This turn changed ${n === 1 ? "a path" : `${n} paths`} a rewind cannot put back: ${c.unrestorable.join("; ")}` });
      }
      for (const note of c.notes) this.hub.emit({ type: "notice", level: "info", text: `Checkpoint: ${note}` });
    } catch (e) {
      this.hub.emit({ type: "notice", level: "warning", text: `The checkpoint of this turn could not be completed: ${messageOf(e)}; a rewind may not know what its commands changed` });
    }
  }

  static async create(opts: AppOptions): Promise<App> {
    const app = new App(opts);
    if (!opts.partsAfterFrame) await app.ready();
    const keyProblem = app.inUse.keyProblem();
    if (opts.headless && keyProblem) throw new MissingKeyError(keyProblem);
    // reads the MCP configuration only: servers start later (mcp.start, or a headless turn)
    app.ext.configure();
    await app.lease.holdNew();
    const o = opts.open;
    if ("resume" in o) {
      const f = await findSession(opts.store, o.resume);
      if (!f.ok) throw new UnknownSessionError(sessionNotFound(f, opts.store.path));
      const s = f.session;
      // --fork-session: a fork of it at its end, the original left as it is (held or not)
      await app.load(o.fork ? await opts.store.forkSession(s.id) : s);
    } else if ("continue" in o) {
      const s = await opts.store.latestSession(opts.workspace);
      if (s) await app.load(o.fork ? await opts.store.forkSession(s.id) : s);
      else await app.loadDraft();
    } else {
      await app.loadDraft();
    }
    return app;
  }

  /** A new session, not yet in the store (open-session.ts): nothing of another session's is kept. */
  private async loadDraft(): Promise<void> {
    // the session's background commands end with it
    await this.shells.stopAll();
    await this.lease.none();
    this.open.draft();
    this.lease.draft(this.open.current);
    this.figures.opened(undefined);
    // before the parts are in, the figure follows them (an "info" event); the session shows now
    const figure = this.figures.refresh();
    if (this.parts.ifLoaded()) await figure;
  }

  /** Opens a stored session: its record (open-session.ts), its figures and its view's staleness. */
  private async load(s: Session): Promise<void> {
    await this.shells.stopAll();
    // the lease before the record: headless refuses a session open elsewhere without reading it
    const held = await this.lease.take(s.id);
    if (held && this.opts.headless) throw new SessionHeldError(headlessHeld(s.id, held));
    let partial: boolean;
    try {
      partial = await this.open.read(s);
    } catch (e) {
      // the session that stays current is not the one leased
      const still = this.open.storedId();
      if (still !== undefined) await this.lease.take(still);
      else await this.lease.none();
      throw e;
    }
    // the provider's report for the session's last answer, as stored with it: the first
    // request after a restart shows it as the previous response's usage
    this.figures.opened(this.open.messages.findLast((m) => m.role === "assistant")?.usage);
    // The session's last request may have been composed otherwise (another model, switched
    // since in another session or another run; project context edited between runs): the
    // next one will differ, so that request is not current.
    const stale = await this.staleReason(s.id, await this.opts.store.inspectorView(s.id));
    if (stale) await this.opts.store.setPending(s.id, stale);
    this.open.follow(s, partial);
    // an estimate of the next request needs the whole record: a long one is not waited for
    // here (the first frame comes first; the figure follows with an "info" event)
    const figure = this.figures.refresh();
    if (!partial && this.parts.ifLoaded()) await figure;
  }

  /** Why a session's stored request no longer shows how the next one is composed (staleness.ts). */
  private staleReason(sessionId: string, view: InspectorView): Promise<string | undefined> {
    return staleReason(view, {
      model: this.inUse.now(),
      ready: () => this.ready(),
      capture: () => this.captureNext([]),
      page: (section, page) => this.opts.store.capturePage(sessionId, section, page),
    });
  }

  /** the capture of the request a turn started now would send after `prior` (turn-env.ts); it
   * encodes with the adapters, so only after ready() */
  private captureNext(prior: Parameters<typeof turnRequest>[0]): Capture {
    return captureNext(this.composition(), this.parts.loaded(), prior);
  }

  /** what was said before a screen listened (sayWhereCommandsRun before the session's frame), for it to show */
  startNotices(): readonly string[] {
    return [...this.startNotes, ...this.workflow.notes()];
  }

  /** problems found while loading the session (bad rows), for headless mode to print */
  loadProblems(): readonly string[] {
    return [...this.startNotes, ...this.open.bad, ...this.workflow.notes()];
  }

  setApi(api: AppInfo["api"]): void {
    this.apiInfo = api;
    this.hub.emit({ type: "info" });
  }

  /** the open session while it has no row yet (before its first message): the local API
   * answers for it as pending */
  unstoredSession(): { id: string; since: string } | undefined {
    return this.open.draftId();
  }

  info(): AppInfo {
    const info = { ...appInfo(this.inUse, this.opts, this.apiInfo), sandbox: this.sandbox.label() };
    const cost = this.cost().total.cost;
    return cost ? { ...info, sessionCost: formatDollars(cost.total) } : info;
  }

  private readonly costs = new CostMemo();
  private readonly shown = new ShownRequest({
    // headless, nothing would show them: -p asks none
    setting: () => (this.opts.headless ? "on-demand" : (this.opts.countTokens ?? "on-demand")),
    changed: () => this.hub.emit({ type: "info" }),
    notice: (level, text) => this.hub.emit({ type: "notice", level, text }),
    closed: this.closeStarted,
  });

  /** what runs without asking: this session's grants and the config's rules (/permissions) */
  permissions(): PermissionsList {
    return permissionsList(this.open.permissions, this.opts.rules);
  }

  /** takes back one of this session's grants, named as permissions() names it */
  revokePermission(grant: string): boolean {
    return this.open.permissions?.revoke(grant) ?? false;
  }

  cost(): SessionCost {
    return this.costs.get(this.open.messages, { ttl: this.opts.cacheTtl ?? "5m", ...(this.opts.prices ? { overrides: this.opts.prices } : {}) });
  }

  setPermission(mode: PermissionPolicy): void {
    if (this.opts.permission === mode) return;
    const wasPlan = this.opts.permission === "plan" || mode === "plan";
    this.opts.permission = mode;
    // plan mode's context item comes or goes: the next request differs
    if (wasPlan) void this.inBackground(this.pending.markOrWarn(`permission mode ${mode}`));
    this.hub.emit({ type: "info" });
  }

  session(): Session {
    return this.open.current;
  }

  history(): readonly StoredMessage[] {
    return this.open.messages;
  }

  summaries(): readonly StoredSummary[] {
    return this.open.summaries;
  }

  readOnly(): string | undefined {
    return this.lease.readOnly;
  }

  busy(): boolean {
    return this.activity.busy() || this.rewinding;
  }

  /** What a rewind works with: the store, the checkpoints, the workspace's real path. */
  private async rewindDeps(): Promise<RewindDeps> {
    await this.ready();
    return { store: this.opts.store, checkpoints: this.checkpoints(), root: await fs.realpath(this.opts.workspace) };
  }

  private refuseWhileBusy(): void {
    if (this.busy()) throw new Error(BUSY.switchSession);
  }

  /** rewind and fork (rewind.ts): the prompts, a preview of what changes, and the rewind itself */
  readonly rewind: RewindControl = {
    prompts: async () => {
      await this.open.wholeHistory;
      return (await import("./rewind.js")).promptChoices(this.open.messages);
    },
    preview: async (n, mode) => {
      this.refuseWhileBusy();
      await this.open.wholeHistory;
      const r = await import("./rewind.js");
      return r.previewRewind(await this.rewindDeps(), this.open.current, this.open.messages, n, mode);
    },
    diff: async (item) => {
      const deps = await this.rewindDeps();
      return deps.checkpoints?.diff(deps.root, item);
    },
    run: async (preview, onItem) => {
      this.refuseWhileBusy();
      if (preview.session.id !== this.open.current.id) throw new Error("the session changed since this rewind was planned; plan it again");
      // open in another window: its turns may be changing the files; only its conversation forks
      if (this.lease.readOnly && preview.code) throw new Error(`${this.lease.readOnly} Its code is not rewound from here; rewind its conversation only, or quit the other window first`);
      const r = await import("./rewind.js");
      const deps = await this.rewindDeps();
      this.rewinding = true;
      let done: RewindDone;
      try {
        done = await r.runRewind(deps, preview, onItem);
      } finally {
        this.rewinding = false;
      }
      if (done.restored.length > 0) {
        // AGENTS.md and the project's facts may be what was restored
        this.parts.context = await loadProjectContext(this.opts.workspace, this.redactKeys);
        await this.pending.mark(r.WORKSPACE_RESTORED);
      }
      if (done.fork) {
        await this.load(done.fork);
        this.hub.emit({ type: "session" });
      }
      this.hub.emit({ type: "info" });
      return done;
    },
  };

  /** The configured keys out of anything on its way into the record or a request (read at
   * each call: /reload may bring new keys). */
  private redactKeys = redactorFor(() => [...Object.values(this.opts.credentials.keys), ...(this.opts.credentials.secrets ?? []), ...(this.ext?.secrets() ?? [])]);

  /** what the next request is made of now (turn-env.ts) */
  private composition(): Composition {
    const own = this.parts.context;
    const ext = this.ext.context();
    return {
      settings: this.opts,
      model: this.inUse.now(),
      info: this.inUse.info(),
      sessionId: this.open.current.id,
      // the project's context items, the skills and SessionStart's, then each MCP server's
      // instructions (a UserPromptSubmit hook's context follows, for its turn: workflow.ts)
      context: withPlanItem(
        [...own, ...this.workflow.skillsContext(), ...ext, ...this.workflow.startContext(this.open.current.id)],
        this.opts.permission,
      ),
      // the built-in tools, todo and skill, then the MCP servers'
      tools: [...this.parts.tools, ...this.workflow.tools(), ...this.ext.tools()],
      redact: this.redactKeys,
      shells: this.shells,
      history: this.open.messages,
    };
  }

  /** what a turn works with; only after ready() (the provider, tools and permission memory come from the parts) */
  private env(): TurnEnv {
    return turnEnv(this.composition(), {
      history: this.open.messages,
      provider: this.inUse.current(),
      memory: (this.open.permissions ??= new (this.parts.loaded().PermissionMemory)()),
      askPermission: this.askPermission,
      events: this.hub,
      previousUsage: this.figures.lastUsage,
      sandbox: this.sandbox.forCommands(),
      onCaptured: (c) => {
        this.shown.sent(c.req, this.inUse.current(), c.capturedAt);
        // the body `context --count-tokens` counts later, kept beside the answer (close awaits it)
        if (c.enc.provider === "anthropic") void this.inBackground(import("../../context/count-body.js").then((m) => m.keepCountBody(this.opts.store, c)));
      },
    }, this.steering);
  }

  /** Exact counts of the request the inspector shows, from the provider's counter, asked now. */
  countShownRequest(): Promise<ProviderCounts> {
    return this.shown.count();
  }

  /** The automatic exact count of the last request (the config's countTokens "each request"). */
  autoCount(): AutoCount | undefined {
    return this.shown.autoCount();
  }

  async submit(text: string, images: ImageBlock[] = [], opts: PromptOptions = {}): Promise<{ sent: boolean }> {
    const outcome = await this.runPrompt(text, images, opts);
    return { sent: !outcome.unsent };
  }

  /** runs one turn and reports how it ended (headless mode needs the outcome); `opts.files`:
   * the blocks of the files the prompt mentions, after its text */
  async runPrompt(text: string, images: ImageBlock[] = [], opts: PromptOptions = {}): Promise<TurnOutcome> {
    // headless: the servers' tools belong to the one turn there is, so it waits for their
    // start (each bounded by its startup timeout) before its requests are built, and their
    // arrival is no change to that turn's view; the screen never waits for them
    if (this.opts.headless && this.ext.hasServers() && !this.busy()) await this.ext.start();
    // a prompt sent before the parts are in waits for them, and counts as running from its
    // first moment so Esc takes it back (nothing awaits before awaitParts)
    if (!this.parts.ifLoaded() && !this.busy()) {
      const ended = await this.activity.awaitParts(() => this.ready().then(() => (this.sandboxSaid ??= this.sayUnsandboxed())));
      if (ended) return ended;
    }
    await (this.sandboxSaid ??= this.sayUnsandboxed());
    // the provider's own model list, read once a run, beats the catalog's figures
    if (!this.busy()) await this.learnModels();
    if (this.lease.readOnly) {
      const refused = readOnlyRefusal(this.lease.readOnly);
      this.hub.emit({ type: "notice", level: "warning", text: refused });
      // unsent: the screen gives the text back, for /fork or for later
      return { ok: false, error: refused, finalText: "", unsent: true };
    }
    const busy = this.activity.promptRefusal();
    if (busy) {
      this.hub.emit({ type: "notice", level: "warning", text: busy });
      return { ok: false, error: busy, finalText: "" };
    }
    const problem = this.inUse.keyProblem();
    if (problem) {
      this.hub.emit({ type: "notice", level: "error", text: problem });
      return { ok: false, error: problem, finalText: "" };
    }
    // a custom command or /init sends what it expands to (its hooks run with the turn)
    if (!opts.literal) text = this.workflow.expand(text);
    const blocks: Block[] = [...images];
    if (text) blocks.push({ type: "text", text });
    blocks.push(...(opts.files ?? []));
    if (blocks.length === 0) return { ok: true, finalText: "" };
    // a prompt over the window by itself is refused here, before anything is stored, with
    // what works instead (the turn holds every request to the same rule)
    const tooLarge = this.parts.loaded().promptOverWindow(this.env(), blocks);
    if (tooLarge) {
      const said = await refusedPrompt(promptTooLarge(tooLarge, this.inUse.now().model), this.redactKeys(text), { workspace: this.opts.workspace, screen: !this.opts.headless });
      this.hub.emit({ type: "notice", level: "error", text: said });
      return { ok: false, unsent: true, error: said, finalText: "" };
    }
    let checkpoint: TurnCheckpoint | undefined;
    /** the prompt's hooks let it through: the Stop hooks run at its end */
    let prompted = false;
    /** a Stop hook's block: the model goes on with its reason */
    let goOn: string | undefined;
    const round = opts.stopHookRound ?? 0;
    const outcome = await this.activity.turn(
      (signal) => this.startTurn(text, blocks, signal, (cp) => (checkpoint = cp), () => (prompted = true), round > 0),
      (o) => {
        if (o.usage) this.figures.lastUsage = o.usage;
        if (o.prepared) this.figures.lastPrepare = o.prepared;
      },
      // after its processes are stopped, while it still counts as running: nothing of the
      // turn changes the workspace any more, and no next turn has begun; then the Stop hooks
      async () => {
        await this.endCheckpoint(checkpoint);
        if (prompted) goOn = await this.workflow.stop(this.open.current.id, round > 0);
      },
    );
    // before this turn's end is told, so nothing queued goes ahead of the model going on
    const next = stopHookContinuation(goOn, outcome, round);
    if (next.notice) this.hub.emit({ type: "notice", level: "info", text: next.notice });
    if (next.prompt !== undefined) return this.runPrompt(next.prompt, [], { literal: true, stopHookRound: round + 1 });
    await this.pending.again();
    this.hub.emit({ type: "state", state: "idle" });
    this.hub.emit({ type: "turn_end", ok: outcome.ok, ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.interrupted ? { interrupted: true } : {}) });
    // what was steered in and never reached a model call goes back to its sender, after the
    // turn's end is told (the screen then sends it next, or gives it back with the queue)
    this.steering.release();
    this.hub.emit({ type: "info" });
    // the error quotes the provider or a server: headless mode prints it
    return outcome.error ? { ...outcome, error: this.redactKeys(outcome.error) } : outcome;
  }

  /** The turn of one prompt: after the whole record is in, the draft's row and the title are
   * stored, then the turn runs; a failure of either ends as a notice, never a throw. */
  private startTurn(text: string, blocks: Block[], signal: AbortSignal, begun: (cp: TurnCheckpoint | undefined) => void, prompted: () => void, fromStopHook: boolean): Promise<TurnOutcome> {
    const env = this.env();
    const turn = async (): Promise<TurnOutcome> => {
      await this.open.wholeHistory;
      // the hooks of the session's start and of the prompt, inside the turn (one at a time)
      const hooked = await this.workflow.beginTurn(env, this.open.current.id, this.open.storedId() === undefined ? "startup" : "resume", text, fromStopHook);
      if (hooked) return hooked;
      prompted();
      const title = text ? this.redactKeys(text).replace(/\s+/g, " ").trim().slice(0, 60) : "";
      // a draft's row comes with its lease (SessionLease.holdNew): nobody else can hold it
      if (await this.open.ensureStored(title)) this.lease.adopt(this.open.current.id);
      env.sessionId = this.open.current.id; // the same id, unless the draft's clashed and the store chose another
      begun(await this.beginCheckpoint(env));
      return this.parts.loaded().runTurn(env, blocks, signal);
    };
    return turn().catch((e: unknown): TurnOutcome => {
      // a store failure (busy, closed…) already reads as a sentence the person can act on
      const msg = e instanceof StoreError ? e.message : `Internal error: ${messageOf(e)}`;
      this.hub.emit({ type: "notice", level: "error", text: msg });
      return { ok: false, error: msg, finalText: "" };
    });
  }

  interrupt(): void {
    this.activity.interrupt();
  }

  /** `!command` (`add`) and `!!command` from the prompt (shell-command.ts) */
  async shellCommand(command: string, add: boolean): Promise<{ output: string; isError: boolean } | undefined> {
    const refused = this.activity.promptRefusal() ?? (add ? this.lease.readOnly : undefined);
    if (refused) {
      this.hub.emit({ type: "notice", level: "warning", text: refused });
      return undefined;
    }
    const parts = await this.ready();
    let result: { output: string; isError: boolean } | undefined;
    await this.activity.turn(
      async (signal) => {
        if (add && (await this.open.ensureStored(`!${this.redactKeys(command)}`.slice(0, 60)))) this.lease.adopt(this.open.current.id);
        result = await parts.runShellCommand(this.env(), command, add, signal);
        return { ok: !result.isError, finalText: "" };
      },
      () => undefined,
    );
    this.hub.emit({ type: "state", state: "idle" });
    this.hub.emit({ type: "info" });
    return result;
  }

  steer(text: string): Promise<boolean> {
    if (!this.activity.turnRunning()) return Promise.resolve(false);
    return this.steering.push(this.redactKeys(text));
  }

  async newSession(): Promise<void> {
    if (this.busy()) throw new Error(BUSY.switchSession);
    await this.loadDraft();
    this.hub.emit({ type: "session" });
    this.hub.emit({ type: "info" });
  }

  /** /model with no argument: each configured provider's models (model-list.ts) */
  listModels(): Promise<ModelChoices> {
    return listModels(this.opts, this.inUse.now(), (t) => this.redactKeys(t));
  }

  async listSessions(): Promise<SessionInfo[]> {
    // each marked where it is open elsewhere: "open elsewhere", "running (detached)"
    return withPlaces(this.opts.store, await this.opts.store.listSessions({ limit: 200 }), thisProcess);
  }

  async switchSession(id: string): Promise<void> {
    if (this.busy()) throw new Error(BUSY.switchSession);
    const f = await findSession(this.opts.store, id);
    if (!f.ok) throw new UnknownSessionError(f.problem);
    const s = f.session;
    await this.load(s);
    this.hub.emit({ type: "session" });
    if (this.lease.readOnly) this.hub.emit({ type: "notice", level: "warning", text: this.lease.readOnly });
    this.hub.emit({ type: "info" });
  }

  /** A new session with this one's record copied (the store's fork, one transaction), opened here;
   * this one stays as it was. The way on from a session open elsewhere. */
  async fork(): Promise<string> {
    if (this.busy()) throw new Error(BUSY.switchSession);
    const from = this.open.storedId();
    if (from === undefined) return NOTHING_TO_FORK;
    const s = await this.opts.store.forkSession(from);
    await this.load(s);
    await this.open.wholeHistory;
    this.hub.emit({ type: "session" });
    this.hub.emit({ type: "info" });
    return forkAnswer(from, s.id, this.open.messages.length);
  }

  async setModel(spec: string): Promise<string> {
    const trimmed = spec.trim();
    if (!trimmed) return modelNow(this.inUse.now());
    // decided (or refused) before anything changes: a refused pair leaves the model as it was
    const { provider, model, said } = chooseModel(trimmed, this.inUse.now(), baseUrls(this.opts));
    this.inUse.use({ provider, model });
    this.figures.lastUsage = undefined;
    this.figures.lastPrepare = undefined;
    await this.pending.mark(PENDING.modelSwitched({ provider, model }));
    this.hub.emit({ type: "info" });
    const info = this.inUse.info();
    // a model that cannot see gets markers for every image: nothing to single out then
    const big = info.vision ? imagesNotTaken(this.open.messages, targetForRequest(imageTarget(provider, true), this.open.messages)) : 0;
    return modelAnswer({ provider, model, ...(said ? { said } : {}) }, info, this.inUse.keyProblem(), big);
  }

  /**
   * Re-reads the project context (instruction files, workspace facts) and, with a config, the
   * settings that can change in a running session: permission, compaction, reasoning, the
   * API keys and the per-provider base URLs. The answer names all of them and what changed.
   */
  async reload(): Promise<string> {
    // the first reading of the project context comes with the parts: this one follows it
    await this.ready();
    const before = this.parts.context;
    this.workflow.load();
    this.parts.context = await loadProjectContext(this.opts.workspace, this.redactKeys);
    const changed = changedItems(before, this.parts.context);
    let settings: string | undefined;
    try {
      const was = await reloadSettings(this.opts);
      if (was) {
        this.inUse.rebuild();
        settings = settingsChanges(was, this.opts);
      }
    } finally {
      // the project context is already re-read even when the config is not
      await this.pending.mark(PENDING.reloaded(changed));
    }
    const mcp = await this.ext.reload().catch((e: unknown) => `MCP: not reloaded: ${messageOf(e)}`);
    this.hub.emit({ type: "info" });
    return reloadAnswer({
      sources: this.parts.context.map((c) => c.source),
      changed,
      ...(settings !== undefined ? { settings } : {}),
      ...(this.opts.configFile ? { configFile: this.opts.configFile } : {}),
      ...(this.ext.hasServers() ? { mcp } : {}),
    });
  }

  async compact(): Promise<string> {
    const refused = (this.lease.readOnly ? readOnlyRefusal(this.lease.readOnly) : undefined) ?? this.activity.compactRefusal() ?? this.inUse.keyProblem();
    if (refused) return refused;
    /** what the summary changed, when one was stored */
    let summarised: string | undefined;
    const said = await this.activity.compact(async (signal) => {
      try {
        await this.open.wholeHistory;
        const { summarize } = await this.ready();
        const s = await summarize(this.env(), this.open.messages.length, signal, { force: true, ...(this.figures.lastUsage ? { providerUsage: this.figures.lastUsage } : {}) });
        if (s.usage) this.figures.lastUsage = s.usage;
        summarised = s.said;
        return compactAnswer(s.said);
      } catch (e) {
        return `Compaction failed: ${messageOf(e)}`;
      }
    });
    // The last capture is the summary request, and the next request carries the summary
    // instead of the history it replaced: the view goes pending, and the status line and
    // the pane give the estimate of that next request (docs/architecture.md, Design rules).
    if (summarised) {
      await this.pending.markOrWarn(PENDING.compacted(summarised));
      await this.open.readSummaries().catch(() => undefined);
    }
    await this.pending.again();
    this.hub.emit({ type: "state", state: "idle" });
    this.hub.emit({ type: "info" });
    return said;
  }

  async exportSession(format: "md" | "json"): Promise<string> {
    await this.open.wholeHistory;
    // the stored row, not the copy taken when the session was opened: every stored message
    // moves its updated_at
    const session = (await this.opts.store.getSession(this.open.current.id)) ?? this.open.current;
    const file = path.join(this.opts.workspace, `albedo-${session.id}.${format === "md" ? "md" : "json"}`);
    const summaries = await this.opts.store.loadSummaries(session.id).catch(() => this.open.summaries);
    const text = format === "md" ? exportMarkdown(session, this.open.messages, summaries) : exportJson(session, this.open.messages, summaries);
    await fs.writeFile(file, text);
    return file;
  }

  loadImage(file: string): Promise<ImageBlock> {
    return loadImage(path.resolve(this.opts.workspace, file), this.inUse.provider);
  }

  contextStatus(): ContextStatus {
    return this.figures.status(this.inUse.info(), this.opts.compaction);
  }

  inspectorView(): Promise<InspectorView> {
    return this.open.view();
  }

  inspectorPage(section: number, page: number): Promise<Page | undefined> {
    return this.open.page(section, page);
  }

  /** Tracks work that is not awaited by its starter, so that close() can await it. */
  private inBackground<T>(work: Promise<T>): Promise<T> {
    this.background.add(work);
    const done = (): void => void this.background.delete(work);
    work.then(done, done);
    return work;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.closeBegun();
    await this.activity.stop();
    await this.shells.stopAll();
    // every MCP server's process group ends with the app
    await this.ext.close().catch(() => undefined);
    // the session is free for the next opener
    await this.lease.release();
    // what runs on the store unawaited ends before it closes; nothing new starts meanwhile
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await this.opts.store.close();
  }
}
