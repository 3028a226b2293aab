// Settles every setting from flags, then the environment, then the config file, then defaults.
import path from "node:path";
import type { Config, HangupChoice, NotifyChoice, ThemeChoice } from "./config.js";
import { startEnv } from "./env-keys.js";
import type { ProviderName, ReasoningLevel } from "../provider/types.js";
import { PERMISSION_MODES, type PermissionPolicy, type PermissionRules } from "../tools/types.js";
import { SANDBOX_SETTINGS, type SandboxSetting } from "../tools/sandbox.js";
import { parseRule } from "../tools/command-rules.js";
import type { CompactionStrategy } from "../compaction/types.js";

export interface Flags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  db?: string;
  workspace?: string;
  continue?: boolean;
  resume?: string;
  permission?: string;
  sandbox?: string;
  compaction?: string;
  keymap?: string;
  reasoning?: string;
}

interface Credentials {
  /** keys by provider, in memory only */
  keys: Partial<Record<ProviderName, string>>;
  /** base URLs by provider from the environment or config */
  baseUrls: Partial<Record<ProviderName, string>>;
  /** every key this run knows, the ones not in use included (a config key shadowed by the
   * environment's is still a live secret): all are cut out of what is stored and sent */
  secrets?: string[];
}

/** Everything a run is configured with; the controller takes it as it is (less the screen's keys). */
export interface Settings {
  provider: ProviderName;
  model?: string;
  /** --base-url: applies to the provider chosen at start */
  baseUrl?: string;
  workspace: string;
  permission: PermissionPolicy;
  /** where bash commands run (default workspace-write; "off" when bubblewrap does not work,
   * which the controller finds out and says) */
  sandbox?: SandboxSetting;
  /** whether a sandboxed command has the network */
  network?: boolean;
  /** the config's "allow" and "deny" */
  rules?: PermissionRules;
  compaction: CompactionStrategy;
  compactionThreshold: number;
  keepToolRounds: number;
  /** rounds microcompact blurs at once (absent: DEFAULT_MICROCOMPACT_STEP, 12) */
  microcompactStep?: number;
  /** how long Anthropic keeps the cached prompt prefix (absent: "5m") */
  cacheTtl?: "5m" | "1h";
  /** when exact counts are asked of the provider (absent: "on-demand", the pane's key) */
  countTokens?: "on-demand" | "each request";
  /** the config's list prices, over the built-in table (provider/prices.ts) */
  prices?: Record<string, { input: number; output: number; cacheRead?: number; cacheWrite5m?: number; cacheWrite1h?: number }>;
  /** OpenAI's wire shape when the config forces one (absent: by the base URL, openaiApi()) */
  api?: "chat" | "responses";
  reasoning: ReasoningLevel;
  maxOutputTokens?: number;
  /** the context window in tokens, over the catalog (local servers, or to compact earlier) */
  contextWindow?: number;
  /** whether the model sees images, over the catalog */
  vision?: boolean;
  /** the screen's keymap: a name or a file */
  keymap: string;
  /** the screen's key bindings from the config file */
  keys: Record<string, string | string[]>;
  /** the screen's colours: "auto" follows the terminal's background */
  theme: ThemeChoice;
  /** the screen's notices when the terminal lost the focus (ui/notify.ts) */
  notify?: NotifyChoice;
  /** a running turn when the terminal hangs up: goes on ("continue") or stops at its first question */
  hangup?: HangupChoice;
  idleTimeoutMs?: number;
  credentials: Credentials;
  /** the config's "checkpoints": whether a turn keeps what it changes, and the bounds
   * (absent: on, with the defaults of src/session/checkpoints/state.ts) */
  checkpoints?: { enabled: boolean; maxFileBytes?: number | undefined; maxTotalBytes?: number | undefined; maxFiles?: number | undefined; keepDays?: number | undefined };
}

export class UsageError extends Error {}

/** A provider base URL must be http(s): "localhost:8080" parses as a URL of scheme "localhost:",
 * and would only fail at the first request, with an error that names nothing we can act on. */
function httpUrl(source: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let ok = false;
  try {
    const u = new URL(value);
    ok = (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`${source} must be an http(s) URL such as http://localhost:8080/v1 (got "${value}")`);
  return value;
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
}

/** The config's "allow" and "deny" as rules; a bash(…) whose inside is no plain command is
 * refused by name (it could never match, and a deny that never matches is worse than none). */
function permissionRules(config: Config): PermissionRules {
  const rules: PermissionRules = { allow: [], deny: [], allowTools: [], denyTools: [] };
  for (const side of ["allow", "deny"] as const) {
    for (const entry of config[side] ?? []) {
      if (!entry.startsWith("bash(")) {
        (side === "allow" ? rules.allowTools : rules.denyTools).push(entry);
        continue;
      }
      const rule = parseRule(entry.slice(5, -1));
      if (!rule) throw new UsageError(`"${side}" in the config file: ${entry} holds no plain command (one command's words, optionally ending in :*)`);
      rules[side].push(rule);
    }
  }
  return rules;
}

/** `env` defaults to process.env plus the provider keys taken out of it at start (env-keys.ts),
 * so a second call (/reload) still sees them. */
export function resolveSettings(flags: Flags, config: Config, env: NodeJS.ProcessEnv = startEnv()): Settings {
  const provider = oneOf("provider", flags.provider, ["anthropic", "openai"] as const) ?? config.provider ?? "anthropic";
  const keys: Credentials["keys"] = {};
  const anthropicKey = env.ANTHROPIC_API_KEY || config.anthropicApiKey;
  const openaiKey = env.OPENAI_API_KEY || config.openaiApiKey;
  if (anthropicKey) keys.anthropic = anthropicKey;
  if (openaiKey) keys.openai = openaiKey;
  const secrets = [env.ANTHROPIC_API_KEY, config.anthropicApiKey, env.OPENAI_API_KEY, config.openaiApiKey].filter((k): k is string => !!k);
  const baseUrls: Credentials["baseUrls"] = {};
  const ab = env.ANTHROPIC_BASE_URL
    ? httpUrl("ANTHROPIC_BASE_URL", env.ANTHROPIC_BASE_URL)
    : httpUrl('"anthropicBaseUrl" in the config file', config.anthropicBaseUrl);
  const ob = env.OPENAI_BASE_URL
    ? httpUrl("OPENAI_BASE_URL", env.OPENAI_BASE_URL)
    : httpUrl('"openaiBaseUrl" in the config file', config.openaiBaseUrl);
  if (ab) baseUrls.anthropic = ab;
  if (ob) baseUrls.openai = ob;
  const baseUrl =
    flags.baseUrl !== undefined
      ? httpUrl("--base-url", flags.baseUrl)
      : httpUrl('"baseUrl" in the config file', config.provider === provider ? config.baseUrl : undefined);
  const model = flags.model ?? (config.provider === undefined || config.provider === provider ? config.model : undefined);
  const s: Settings = {
    provider,
    workspace: path.resolve(flags.workspace ?? process.cwd()),
    permission: oneOf("permission", flags.permission, PERMISSION_MODES) ?? config.permission ?? "ask",
    sandbox: oneOf("sandbox", flags.sandbox, SANDBOX_SETTINGS) ?? config.sandbox ?? "workspace-write",
    network: config.network === "on",
    rules: permissionRules(config),
    compaction:
      oneOf("compaction", flags.compaction, ["none", "microcompact", "summary", "microcompact+summary"] as const) ??
      config.compaction ??
      "microcompact+summary",
    compactionThreshold: config.compactionThreshold ?? 0.8,
    keepToolRounds: config.keepToolRounds ?? 3,
    reasoning: oneOf("reasoning", flags.reasoning, ["off", "low", "medium", "high"] as const) ?? config.reasoning ?? "off",
    keymap: flags.keymap ?? config.keymap ?? "default",
    keys: config.keys ?? {},
    theme: config.theme ?? "auto",
    notify: config.notify ?? "auto",
    hangup: config.hangup ?? "continue",
    credentials: { keys, baseUrls, secrets },
  };
  if (model) s.model = model;
  if (baseUrl) s.baseUrl = baseUrl;
  if (config.maxOutputTokens) s.maxOutputTokens = config.maxOutputTokens;
  if (config.microcompactStep !== undefined) s.microcompactStep = config.microcompactStep;
  if (config.cacheTtl !== undefined) s.cacheTtl = config.cacheTtl;
  if (config.prices !== undefined) s.prices = config.prices;
  if (config.countTokens !== undefined) s.countTokens = config.countTokens;
  if (config.api !== undefined) s.api = config.api;
  if (config.contextWindow) s.contextWindow = config.contextWindow;
  if (config.vision !== undefined) s.vision = config.vision;
  if (config.idleTimeoutSeconds) s.idleTimeoutMs = config.idleTimeoutSeconds * 1000;
  if (config.checkpoints) {
    const { enabled, ...limits } = config.checkpoints;
    s.checkpoints = { enabled: enabled ?? true, ...limits };
  }
  return s;
}
