// The config file ($XDG_CONFIG_HOME/albedo/config.json), validated with zod so a bad
// field is named. Keys may live here or in the environment; either way only in memory.
import { z } from "zod";
import { messageOf } from "../record/errors.js";
import { decodeUtf8, jsonSyntaxProblem, readStartFileSync, StartFileError } from "./files.js";
import { defaultConfigPath, tightenFile } from "./paths.js";
import { PERMISSION_MODES } from "../tools/types.js";
import { SANDBOX_SETTINGS } from "../tools/sandbox.js";

/** a permission rule: a tool's name, or bash(command words, optionally ending in :*) */
const RULE = /^([A-Za-z0-9_-]+|bash\([^()\n]+\))$/;
const RULE_PROBLEM = 'a rule is a tool\'s name ("edit") or "bash(npm test:*)" / "bash(git status)"';

const keyBinding = z.union([z.string(), z.array(z.string())]);

/** the screen's colours: for a dark or a light background, or "auto": ask the terminal */
const THEME_CHOICES = ["dark", "light", "auto"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];
/** how the screen tells a person looking elsewhere that a turn ended or a question waits (ui/notify.ts) */
export const NOTIFY_CHOICES = ["auto", "bell", "osc9", "off"] as const;
export type NotifyChoice = (typeof NOTIFY_CHOICES)[number];
/** what a turn does when its terminal hangs up (SIGHUP): go on to its end answering questions
 * "no", or stop at the first question */
export const HANGUP_CHOICES = ["continue", "quit"] as const;
export type HangupChoice = (typeof HANGUP_CHOICES)[number];

/** One MCP server, in the shape Claude Code, Codex and others use: `command`,
 * `args`, `env`, `cwd` for stdio; `url`, `headers` for Streamable HTTP. Any string may name
 * variables ("${GITHUB_TOKEN}"); what of it is a secret (never stored or shown) is
 * config/secrets.ts's rule. */
export const mcpServerSchema = z
  .object({
    type: z.enum(["stdio", "http", "streamable-http", "sse"]).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    disabled: z.boolean().optional(),
    /** a stdio server runs inside the command sandbox (docs/sandbox.md), its cwd writable */
    sandbox: z.boolean().optional(),
    /** seconds the server may take to start and answer initialize (at most a day: a timer
     * past 2^31 ms fires at once) */
    startupTimeoutSeconds: z.number().positive().max(86_400, "at most 86400 seconds (a day)").optional(),
    /** seconds one tool call may take */
    toolTimeoutSeconds: z.number().positive().max(86_400, "at most 86400 seconds (a day)").optional(),
  })
  .strict();
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const configSchema = z
  .object({
    provider: z.enum(["anthropic", "openai"]).optional(),
    model: z.string().min(1).optional(),
    baseUrl: z.string().url().optional(),
    anthropicApiKey: z.string().min(1).optional(),
    openaiApiKey: z.string().min(1).optional(),
    anthropicBaseUrl: z.string().url().optional(),
    openaiBaseUrl: z.string().url().optional(),
    permission: z.enum(PERMISSION_MODES).optional(),
    /** where bash commands run: inside bubblewrap (workspace-write, read-only) or not (off) */
    sandbox: z.enum(SANDBOX_SETTINGS).optional(),
    /** a sandboxed command's network: "off" (none, the default) or "on" (the host's) */
    network: z.enum(["on", "off"]).optional(),
    /** what runs without asking: "bash(npm test:*)" (commands starting with the words),
     * "bash(git status)" (exactly), or a tool's name ("edit") */
    allow: z.array(z.string().regex(RULE, RULE_PROBLEM)).optional(),
    /** what never runs, in the same spelling; a compound command is refused when any part matches */
    deny: z.array(z.string().regex(RULE, RULE_PROBLEM)).optional(),
    compaction: z.enum(["none", "microcompact", "summary", "microcompact+summary"]).optional(),
    compactionThreshold: z.number().gt(0).lte(1).optional(),
    keepToolRounds: z.number().int().min(0).optional(),
    /** rounds microcompact blurs at once (1: every round, breaking the prompt cache each time) */
    microcompactStep: z.number().int().min(1).optional(),
    /** how long Anthropic keeps the cached prompt prefix: "5m" (renewed by each read) or "1h" */
    cacheTtl: z.enum(["5m", "1h"]).optional(),
    /** exact token counts from the provider (Anthropic's count_tokens): "on-demand" (the
     * context pane's key) or "each request" (asked in the background after each request) */
    countTokens: z.enum(["on-demand", "each request"]).optional(),
    /** list prices by model id, $ per million tokens, over the built-in table (local or
     * negotiated prices; docs/providers.md, Prices) */
    prices: z
      .record(
        z.string().min(1).max(200),
        z.strictObject({
          input: z.number().nonnegative().max(10_000),
          output: z.number().nonnegative().max(10_000),
          cacheRead: z.number().nonnegative().max(10_000).exactOptional(),
          cacheWrite5m: z.number().nonnegative().max(10_000).exactOptional(),
          cacheWrite1h: z.number().nonnegative().max(10_000).exactOptional(),
        }),
      )
      .optional(),
    /** OpenAI's wire shape: "responses" (the default on OpenAI's own endpoint) or "chat" (the
     * default for any other base URL); set it to force one */
    api: z.enum(["chat", "responses"]).optional(),
    reasoning: z.enum(["off", "low", "medium", "high"]).optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    /** the window and image support of the model, over the catalog (local servers) */
    contextWindow: z.number().int().positive().optional(),
    vision: z.boolean().optional(),
    keymap: z.string().min(1).optional(),
    keys: z.record(z.string(), keyBinding).optional(),
    theme: z.enum(THEME_CHOICES).optional(),
    notify: z.enum(NOTIFY_CHOICES).optional(),
    hangup: z.enum(HANGUP_CHOICES).optional(),
    /** seconds without a byte from the provider before a stream is given up */
    idleTimeoutSeconds: z.number().positive().optional(),
    /** MCP servers by name (src/extensions/) */
    mcpServers: z.record(z.string(), mcpServerSchema).optional(),
    /** env names (exact) whose values in any MCP server's "env" are secrets, beyond the names
     * that look like credentials (config/secrets.ts); only the user's own file can say so */
    mcpSecretEnv: z.array(z.string().min(1)).optional(),
    /** file checkpoints before a turn changes the workspace (src/session/checkpoints/): off, or
     * their bounds; a file past a bound is named when a turn changes it, never copied */
    checkpoints: z
      .object({
        enabled: z.boolean().optional(),
        /** a file larger than this is not copied */
        maxFileBytes: z.number().int().positive().optional(),
        /** one walk of the workspace copies at most this many bytes in all */
        maxTotalBytes: z.number().int().positive().optional(),
        /** one walk stops after this many paths */
        maxFiles: z.number().int().positive().optional(),
        /** a turn's checkpoint is kept this many days */
        keepDays: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    /** MCP tools (mcp__server__tool, or mcp__server__* for all of a server's) that may run in read-only mode */
    allowInReadOnly: z
      .array(
        // matched against the names as sent, so anything else could never match: refused, not ignored
        z.string().regex(/^mcp__[A-Za-z0-9_-]+(__\*)?$/, "an entry is an MCP tool's name as sent, mcp__<server>__<tool> (characters other than A-Z a-z 0-9 _ - become _), or mcp__<server>__* for all of a server's tools"),
      )
      .optional(),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.join(".") : undefined;
  if (issue.code === "unrecognized_keys") {
    const what = `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    // inside an object (an MCP server's entry): say whose field it is
    return field ? `field "${field}": ${what}` : what;
  }
  return field ? `field "${field}": ${issue.message}` : issue.message;
}

/** Parses config text; throws ConfigError naming the file and the bad field. */
export function parseConfig(text: string, file: string): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // in words of its own: JSON.parse's message quotes the file's first bytes, which may be a key
    throw new ConfigError(`${file} is ${jsonSyntaxProblem(text)}`);
  }
  const r = configSchema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.map(describeIssue);
    throw new ConfigError(`${file}: ${lines.join("; ")}`);
  }
  return r.data;
}

/** A config file is a few hundred bytes; anything near this is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads the config file; a missing file is an empty config. A folder, FIFO, device or a file
 * over 1 MB is refused by name (reading /dev/zero would never end), and a UTF-8 byte-order
 * mark is accepted. A file that holds an API key and that other users can read is made 0600.
 */
export function loadConfig(file = defaultConfigPath()): { config: Config; file: string; exists: boolean } {
  let text: string;
  try {
    text = decodeUtf8(readStartFileSync(file, { what: "the config file", maxBytes: MAX_CONFIG_BYTES }), `the config file ${file}`);
  } catch (e) {
    if (e instanceof StartFileError) {
      if (e.code === "ENOENT") return { config: {}, file, exists: false };
      throw new ConfigError(e.message);
    }
    throw new ConfigError(`cannot read ${file}: ${messageOf(e)}`);
  }
  const config = parseConfig(text, file);
  if (config.anthropicApiKey || config.openaiApiKey) tightenFile(file);
  return { config, file, exists: true };
}
