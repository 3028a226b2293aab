// The built-in model table: the offline fallback behind what a provider's Models API says
// (model-facts.ts). Sources and the date they were read are in docs/providers.md, Model
// catalog. `basis` says how sure a row is:
//   "sdk"        the id is in the SDK's model list and the figures in the reference's table
//   "secondhand" figures from an earlier published table, not read again
//   "line"       no source gives figures for this id: the row takes its line's conservative
//                ones (a smaller window compacts early, a smaller output is never refused)
export type ThinkingMode = "adaptive" | "budget" | "effort" | "none";
export type Lifecycle = "active" | "deprecated" | "retired";
export type Basis = "sdk" | "secondhand" | "line";

export interface Entry {
  /** the id itself; dated snapshots ("-20251001", "-2025-04-14", "-0613") and "-latest" of it match too */
  id: string;
  contextWindow: number;
  maxOutput: number;
  vision: boolean;
  /** adaptive (Claude, steered by effort), budget (Claude, budget_tokens), effort (OpenAI's
   * reasoning_effort / reasoning), none (the model refuses a reasoning setting) */
  thinking: ThinkingMode;
  lifecycle: Lifecycle;
  basis: Basis;
  /** kept so old sessions and snapshots resolve, but not offered in /model */
  legacy?: true;
}

const claude = (id: string, contextWindow: number, maxOutput: number, thinking: ThinkingMode, lifecycle: Lifecycle, basis: Basis): Entry => ({
  id,
  contextWindow,
  maxOutput,
  vision: true,
  thinking,
  lifecycle,
  basis,
});

const M = 1_000_000;

// No line swallows a neighbour: each id matches itself and its snapshots only
// ("claude-opus-4" never matches "claude-opus-4-5").
export const ANTHROPIC: Entry[] = [
  // Claude 5: the reference gives 1M / 128K for Sonnet 5, Opus 5 and 5.5, Fable 5.x
  claude("claude-opus-5-5", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-opus-5", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-sonnet-5", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-fable-5-2", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-fable-5-1", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-fable-5", M, 128_000, "adaptive", "active", "sdk"),
  // in the SDK's list, no figures in any source read: the line's conservative ones
  claude("claude-sonnet-5-5", 200_000, 64_000, "adaptive", "active", "line"),
  claude("claude-haiku-5-5", 200_000, 64_000, "adaptive", "active", "line"),
  claude("claude-mythos-5-2", 200_000, 64_000, "adaptive", "active", "line"),
  claude("claude-mythos-5-1", 200_000, 64_000, "adaptive", "active", "line"),
  claude("claude-mythos-5", 200_000, 64_000, "adaptive", "active", "line"),
  // the SDK's deprecated-models table (retirement June 30th, 2026)
  claude("claude-mythos-preview", 200_000, 64_000, "adaptive", "deprecated", "line"),
  // Opus 4.7 and later refuse a budget; 4.6 takes adaptive (docs/providers.md, Anthropic Messages)
  claude("claude-opus-4-8", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-opus-4-7", M, 128_000, "adaptive", "active", "sdk"),
  claude("claude-opus-4-6", M, 128_000, "adaptive", "active", "sdk"),
  // sources disagree (64K vs 128K): the smaller one never makes a request the API rejects
  claude("claude-sonnet-4-6", M, 64_000, "adaptive", "active", "sdk"),
  // deprecated in SDK 1.13.0 (end of life January 22, 2027)
  claude("claude-opus-4-5", 200_000, 64_000, "budget", "deprecated", "sdk"),
  claude("claude-haiku-4-5", 200_000, 64_000, "budget", "active", "sdk"),
  // retired: removed from the SDK's list (Sonnet 4.5 in 1.15.0, Opus 4.1 in 0.116.0, the
  // rest earlier); kept so stored sessions and snapshots still resolve
  claude("claude-sonnet-4-5", 200_000, 64_000, "budget", "retired", "sdk"),
  claude("claude-opus-4-1", 200_000, 32_000, "budget", "retired", "sdk"),
  claude("claude-opus-4", 200_000, 32_000, "budget", "retired", "sdk"),
  // 1M only with a beta header we do not send
  claude("claude-sonnet-4", 200_000, 64_000, "budget", "retired", "sdk"),
  claude("claude-3-7-sonnet", 200_000, 64_000, "budget", "retired", "secondhand"),
  claude("claude-3-5-sonnet", 200_000, 8_192, "none", "retired", "secondhand"),
  claude("claude-3-5-haiku", 200_000, 8_192, "none", "retired", "secondhand"),
  claude("claude-3-opus", 200_000, 4_096, "none", "retired", "secondhand"),
  claude("claude-3-sonnet", 200_000, 4_096, "none", "retired", "secondhand"),
  claude("claude-3-haiku", 200_000, 4_096, "none", "retired", "secondhand"),
];

const oa = (
  id: string,
  contextWindow: number,
  maxOutput: number,
  vision: boolean,
  thinking: ThinkingMode,
  basis: Basis,
  legacy?: true,
): Entry => ({ id, contextWindow, maxOutput, vision, thinking, lifecycle: "active", basis, ...(legacy ? { legacy } : {}) });

const GPT5 = [400_000, 128_000] as const;
// gpt-5.4: sources disagree (1.05M vs 272K): the smaller one never overflows
const GPT54 = [272_000, 128_000] as const;
const CHAT_LATEST = [128_000, 16_384] as const;
const O_SERIES = [200_000, 100_000] as const;
const GPT4O = [128_000, 16_384] as const;
const GPT41 = [1_047_576, 32_768] as const;

export const OPENAI: Entry[] = [
  // gpt-5.6: no figures in any source read; gpt-5.4's, the line's latest known
  oa("gpt-5.6-sol", ...GPT54, true, "effort", "line"),
  oa("gpt-5.6-terra", ...GPT54, true, "effort", "line"),
  oa("gpt-5.6-luna", ...GPT54, true, "effort", "line"),
  oa("gpt-5.4", ...GPT54, true, "effort", "sdk"),
  oa("gpt-5.4-mini", ...GPT54, true, "effort", "line"),
  oa("gpt-5.4-nano", ...GPT54, true, "effort", "line"),
  // every chat-latest is ChatGPT's model: 128K / 16,384, and no reasoning setting
  oa("gpt-5.3-chat-latest", ...CHAT_LATEST, true, "none", "line"),
  oa("gpt-5.2-chat-latest", ...CHAT_LATEST, true, "none", "line"),
  oa("gpt-5.1-chat-latest", ...CHAT_LATEST, true, "none", "sdk"),
  oa("gpt-5-chat-latest", ...CHAT_LATEST, true, "none", "sdk"),
  oa("gpt-5.2", ...GPT5, true, "effort", "sdk"),
  oa("gpt-5.2-pro", ...GPT5, true, "effort", "line"),
  oa("gpt-5.1", ...GPT5, true, "effort", "sdk"),
  oa("gpt-5.1-mini", ...GPT5, true, "effort", "line"),
  oa("gpt-5.1-codex", ...GPT5, true, "effort", "sdk"),
  oa("gpt-5.1-codex-max", ...GPT5, true, "effort", "line"),
  oa("gpt-5", ...GPT5, true, "effort", "sdk"),
  oa("gpt-5-mini", ...GPT5, true, "effort", "sdk"),
  oa("gpt-5-nano", ...GPT5, true, "effort", "sdk"),
  oa("gpt-5-codex", ...GPT5, true, "effort", "line"),
  oa("gpt-5-pro", ...GPT5, true, "effort", "line"),
  oa("gpt-4.1", ...GPT41, true, "none", "sdk"),
  oa("gpt-4.1-mini", ...GPT41, true, "none", "sdk"),
  oa("gpt-4.1-nano", ...GPT41, true, "none", "sdk"),
  oa("o4-mini", ...O_SERIES, true, "effort", "sdk"),
  oa("o3", ...O_SERIES, true, "effort", "sdk"),
  oa("o3-mini", ...O_SERIES, false, "effort", "sdk"),
  oa("o3-pro", ...O_SERIES, true, "effort", "line"),
  oa("o1", ...O_SERIES, true, "effort", "sdk"),
  oa("o1-pro", ...O_SERIES, true, "effort", "line"),
  oa("codex-mini-latest", ...O_SERIES, true, "effort", "line"),
  oa("o3-deep-research", ...O_SERIES, true, "effort", "line", true),
  oa("o4-mini-deep-research", ...O_SERIES, true, "effort", "line", true),
  oa("o1-preview", 128_000, 32_768, false, "none", "secondhand", true),
  oa("o1-mini", 128_000, 65_536, false, "none", "secondhand", true),
  oa("gpt-4o", ...GPT4O, true, "none", "sdk"),
  oa("gpt-4o-mini", ...GPT4O, true, "none", "sdk"),
  // ChatGPT's 4o: no reasoning setting
  oa("chatgpt-4o-latest", ...GPT4O, true, "none", "line"),
  // audio and search previews: text (and audio) in, no images
  oa("gpt-4o-audio-preview", ...GPT4O, false, "none", "line", true),
  oa("gpt-4o-mini-audio-preview", ...GPT4O, false, "none", "line", true),
  oa("gpt-4o-search-preview", ...GPT4O, false, "none", "line", true),
  oa("gpt-4o-mini-search-preview", ...GPT4O, false, "none", "line", true),
  oa("computer-use-preview", 8_192, 1_024, true, "none", "secondhand", true),
  oa("gpt-4-turbo", 128_000, 4_096, true, "none", "secondhand", true),
  oa("gpt-4-turbo-preview", 128_000, 4_096, false, "none", "secondhand", true),
  oa("gpt-4-0125-preview", 128_000, 4_096, false, "none", "secondhand", true),
  oa("gpt-4-1106-preview", 128_000, 4_096, false, "none", "secondhand", true),
  oa("gpt-4-vision-preview", 128_000, 4_096, true, "none", "secondhand", true),
  oa("gpt-4", 8_192, 8_192, false, "none", "secondhand", true),
  oa("gpt-4-32k", 32_768, 8_192, false, "none", "secondhand", true),
  oa("gpt-3.5-turbo", 16_385, 4_096, false, "none", "secondhand", true),
  oa("gpt-3.5-turbo-16k", 16_385, 4_096, false, "none", "secondhand", true),
];
