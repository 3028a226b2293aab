// The strict fake's Anthropic thinking rules beyond the field's shape, in the real API's words
// (hooked into validateAnthropic in fake-provider.ts):
// - models from before extended thinking refuse it: "'claude-3-5-sonnet-20241022' does not
//   support thinking." (quoted in anthropics/claude-code#2245);
// - with thinking enabled, the assistant message of the tool loop in progress (the one whose
//   tool_use blocks the request's last message answers) must start with its thinking block
//   (quoted in anomalyco/opencode#3077 and n8n-io/n8n#22550). Adaptive thinking may skip
//   thinking, so only `enabled` is held to it. This one is exported for tests to check bodies
//   with (toolLoopThinkingRefusal) but not applied by the route: the seeded capture property
//   test (test/unit/capture-wire-property.test.ts) makes up tool rounds without thinking under
//   thinking, which the real model never answers.

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

/** Claude models from before extended thinking: 3.5 Sonnet and Haiku, 3 Opus, Sonnet and Haiku. */
const NON_THINKING = /^claude-3-(5-|opus|sonnet|haiku)/;

const blocksOf = (m: unknown): Obj[] => {
  const c = isObj(m) ? m["content"] : undefined;
  return typeof c === "string" ? [{ type: "text", text: c }] : Array.isArray(c) ? c.filter(isObj) : [];
};

/** What the real API would refuse about thinking for this body's model, or undefined. */
export function anthropicThinkingRefusal(body: Obj): string | undefined {
  const thinking = body["thinking"];
  const type = isObj(thinking) ? thinking["type"] : undefined;
  if (type !== "enabled" && type !== "adaptive") return undefined;
  const model = String(body["model"]);
  if (NON_THINKING.test(model)) return `'${model}' does not support thinking.`;
  return undefined;
}

/** The tool loop's rule (see the top of this file), or undefined. */
export function toolLoopThinkingRefusal(body: Obj): string | undefined {
  const thinking = body["thinking"];
  if (!isObj(thinking) || thinking["type"] !== "enabled") return undefined;
  const messages = Array.isArray(body["messages"]) ? body["messages"] : [];
  const i = messages.length - 2;
  const last = messages[messages.length - 1];
  const prev = messages[i];
  if (!isObj(last) || last["role"] !== "user" || !isObj(prev) || prev["role"] !== "assistant") return undefined;
  if (!blocksOf(last).some((b) => b["type"] === "tool_result") || !blocksOf(prev).some((b) => b["type"] === "tool_use")) return undefined;
  const first = String(blocksOf(prev)[0]?.["type"]);
  if (first === "thinking" || first === "redacted_thinking") return undefined;
  return (
    `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message ` +
    "must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. " +
    "To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
  );
}
