// What the screen (and any other front end) may ask of the running app.
import type { SessionCost } from "./cost.js";
import type { PermissionsList } from "./permissions-list.js";
import type { BackgroundShells } from "../../tools/background.js";
import type { StoredSummary } from "../../compaction/types.js";
// The screen sends intents down through this and renders the events that come up.
import type { ImageBlock, Session, SessionInfo, StoredMessage, TextBlock } from "../../record/types.js";
import type { ProviderName, ReasoningLevel } from "../../provider/types.js";
import type { ModelChoices } from "../../provider/models.js";
import type { PermissionPolicy } from "../../tools/types.js";
import type { InspectorView, Page } from "../../context/types.js";
import type { FigureBasis } from "../../context/format.js";
import type { Listener, SubscribeOptions } from "../turn/events.js";
import type { TurnOutcome } from "../turn/env.js";
import type { ServerStatus } from "../../extensions/manager.js";
import type { WorkflowControl } from "./workflow.js";
import type { PlannedItem, PromptChoice, RewindDone, RewindMode, RewindPreview } from "./rewind.js";
import type { AlongsideControl } from "./alongside.js";

import type { CompactionStrategy } from "../../compaction/types.js";
export type { CompactionStrategy };

export interface AppInfo {
  provider: ProviderName;
  model: string;
  baseUrl: string;
  /** context window when the catalog knows it */
  contextWindow?: number;
  vision: boolean;
  permission: PermissionPolicy;
  /** where commands run, for the status line: "sandbox workspace-write", "sandbox off", "UNSANDBOXED" */
  sandbox?: string;
  compaction: CompactionStrategy;
  reasoning: ReasoningLevel;
  /** set when reasoning is asked for and the model takes no reasoning setting (the catalog
   * says so, and none is sent): "reasoning not available for gpt-4o" */
  reasoningNote?: string;
  /** set when no source knows the model (or only its line): what was assumed of it */
  modelNote?: string;
  /** the session's cost so far at list prices ("$0.0474"), when every answer's model has a price */
  sessionCost?: string;
  workspace: string;
  dbPath: string;
  /** set when the provider needs a key and none is configured: says what to set */
  keyProblem?: string;
  /** where the local API listens and where its token is, when --api is on */
  api?: { url: string; tokenFile: string };
}

/**
 * The status line's token figure: the one the context pane gives. While the pane shows a
 * captured request, that request's total (every section, as compacted); while it says
 * pending (before a session's first request, after /model, /reload, /compact or a changed
 * project context), an estimate of the request a turn started now would send, before its
 * prompt. Counted by the inspector's capture, so its method is the pane's.
 */
export interface ContextFigure {
  basis: FigureBasis;
  tokens: number;
  /** e.g. "chars/4" or "o200k tokenizer + images by size" */
  method: string;
}

export interface ContextStatus {
  /** absent until it is worked out (a screen's first frame does not wait for it) */
  figure?: ContextFigure;
  /** the figure in words: "≈ 41,200 tokens (chars/4)", "next request ≈ 1,200 tokens
   * (chars/4)"; empty while there is no figure */
  estimate: string;
  window?: number;
  /** "microcompact: 14 outputs, 412 kB" or "auto-compaction off: window unknown" */
  compaction: string;
}

/** Rewind (rewind.ts), for the front ends; /fork is the controller's own fork(). */
export interface RewindControl {
  /** the session's prompts, numbered from 1 (after the whole record is read) */
  prompts(): Promise<PromptChoice[]>;
  /** what a rewind to prompt n would change; nothing is done */
  preview(n: number, mode: RewindMode): Promise<RewindPreview>;
  /** one planned path's change as a unified diff, when both sides are text */
  diff(item: PlannedItem): Promise<string | undefined>;
  /** carries the preview out: the code restored, the conversation forked (the fork becomes
   * the current session); `onItem` hears each path as it is put back */
  run(preview: RewindPreview, onItem?: (line: string) => void): Promise<RewindDone>;
}

/** MCP servers (src/extensions/), for the front ends. */
export interface McpControl {
  /** starts the configured servers in parallel; the screen calls it after its first frame */
  start(): void;
  /** /mcp: each server's state, tool count, last error and approval, in lines */
  describe(): string;
  /** /mcp approve: approves the workspace's .mcp.json (remembered per content) and starts it */
  approve(): Promise<string>;
  status(): ServerStatus[];
}

/** how a prompt is taken */
export interface PromptOptions {
  /** sent as written: never expanded as a custom command (the screen's "//text") */
  literal?: boolean;
  /** the blocks of the files the prompt mentions (@path), after its text */
  files?: TextBlock[];
  /** the prompt is a Stop hook's reason to go on (not a person's): how many such in a row;
   * no UserPromptSubmit hook runs for it, and the Stop hooks are told stop_hook_active */
  stopHookRound?: number;
}

export interface Controller {
  /** the session's background commands (/shells); absent where none can run */
  readonly shells?: BackgroundShells;
  /** `!command` from the prompt: runs it as bash runs (same permissions); `add` stores its
   * output as the person's message. Undefined when it could not run now (said in a notice). */
  shellCommand?(command: string, add: boolean): Promise<{ output: string; isError: boolean } | undefined>;
  /** the one channel of what happens: returns the unsubscribe */
  subscribe(fn: Listener, opts?: SubscribeOptions): () => void;
  info(): AppInfo;
  /** what the session cost so far, per turn and in all, from provider usage (cost.ts) */
  cost(): SessionCost;
  /** this session's grants and the config's rules (/permissions); absent where not kept here */
  permissions?(): PermissionsList;
  /** takes back one of this session's grants, named as permissions() names it; false when none */
  revokePermission?(grant: string): boolean;
  /** switches the permission mode for the rest of the run (the screen's mode key) */
  setPermission(mode: PermissionPolicy): void;
  session(): Session;
  /** the current session's record as loaded (the store is the truth; this is its read) */
  history(): readonly StoredMessage[];
  /** the session's /compact summaries, newest first: the transcript shows each at its place */
  summaries(): readonly StoredSummary[];
  /** why the session is read-only here (it is open in another process); undefined when it is not */
  readOnly(): string | undefined;
  /** /fork: a new session with this one's record copied, opened here; the answer says so */
  fork(): Promise<string>;
  busy(): boolean;
  /**
   * runs one user turn to the end; failures arrive as notice events, never as throws.
   * `sent: false`: taken back by interrupt() before anything was stored or sent (a prompt
   * waiting for the turn's code), so the screen can give the text back.
   */
  submit(text: string, images?: ImageBlock[], opts?: PromptOptions): Promise<{ sent: boolean }>;
  /**
   * submit() for a front end that ends with the turn (headless mode): runs one user turn to
   * the end and says how it ended, with its final text, for the exit code and stdout
   */
  runPrompt(text: string, images?: ImageBlock[], opts?: PromptOptions): Promise<TurnOutcome>;
  /** problems found while loading the session (rows that could not be read), to be shown */
  loadProblems(): readonly string[];
  /** what the controller said before a screen listened (where commands run), for it to show */
  startNotices(): readonly string[];
  /** stops the stream or the running tool; what arrived is kept */
  interrupt(): void;
  /**
   * sends a message into the running turn, stored before its next model call; resolves true
   * once stored, false when no turn runs or it ended without taking it (the text is the
   * caller's again). Absent in front-end tests' stand-ins.
   */
  steer?(text: string): Promise<boolean>;
  newSession(): Promise<void>;
  listSessions(): Promise<SessionInfo[]>;
  switchSession(id: string): Promise<void>;
  /** "/model NAME" or "/model provider:NAME"; returns a line for the transcript */
  setModel(spec: string): Promise<string>;
  /** what "/model" with no argument lists: each configured provider's catalog and served
   * models (a server that cannot list them says why); never throws for a failed fetch */
  listModels(): Promise<ModelChoices>;
  /** re-reads AGENTS.md and config; returns a line for the transcript */
  reload(): Promise<string>;
  compact(): Promise<string>;
  /** writes an export file, returns its path */
  exportSession(format: "md" | "json"): Promise<string>;
  /** reads an image file into a block, or throws an Error naming the problem */
  loadImage(path: string): Promise<ImageBlock>;
  contextStatus(): ContextStatus;
  inspectorView(): Promise<InspectorView>;
  inspectorPage(section: number, page: number): Promise<Page | undefined>;
  close(): Promise<void>;
  /** MCP servers; absent in front-end tests' stand-ins */
  mcp?: McpControl;
  /** rewind; absent in front-end tests' stand-ins */
  rewind?: RewindControl;
  /** custom commands, skills, hooks (workflow.ts); absent in front-end tests' stand-ins */
  workflow?: WorkflowControl;
  /** drafts, the workspace's prompt history, hanging up; absent in front-end tests' stand-ins */
  alongside?: AlongsideControl;
}
