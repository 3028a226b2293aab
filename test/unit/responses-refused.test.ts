// Which optional fields of a Responses body a refusal names (src/provider/responses/refused.ts): the
// same servers' wordings Chat reads (refusals.ts), plus the Responses API's own (error.param,
// "reasoning.effort", the verification sentence for summaries). A local server forced to
// this shape words its refusals as it does for Chat.
import { describe, expect, it } from "vitest";
import { RequestRefused } from "../../src/provider/error-body.js";
import type { ResponsesOptionalField } from "../../src/provider/responses/encode.js";
import { refusedFields } from "../../src/provider/responses/refused.js";

const BODY = {
  model: "m",
  input: [],
  stream: true,
  store: false,
  reasoning: { effort: "high", summary: "auto" },
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "k",
};

const refused = (detail: { message: string; text?: string; param?: string; code?: string; type?: string }, body: Record<string, unknown> = BODY): ResponsesOptionalField[] =>
  refusedFields(new RequestRefused("refused", { provider: "openai", status: 400 } as never, { text: "", ...detail }), body as never);

describe("refusedFields on the Responses route", () => {
  it.each<[string, { message: string; text?: string; param?: string; code?: string }, ResponsesOptionalField[]]>([
    // the Responses API's own words
    ["param", { message: "Unknown parameter: 'prompt_cache_key'.", param: "prompt_cache_key", code: "unknown_parameter" }, ["prompt_cache_key"]],
    ["summaries need a verified organization", { message: "Your organization must be verified to generate reasoning summaries.", param: "reasoning.summary" }, ["reasoning.summary"]],
    ["the effort, named by param", { message: "Unsupported parameter: 'reasoning.effort' is not supported with this model.", param: "reasoning.effort" }, ["reasoning"]],
    ["the effort, named in the message only", { message: "Unsupported parameter: 'reasoning.effort' is not supported with this model." }, ["reasoning"]],
    ["the summary, named in the message only", { message: "Unknown parameter: 'reasoning.summary'." }, ["reasoning.summary"]],
    // wordings of other servers, which only Chat's detector read before
    ["Azure, unquoted list", { message: "Unrecognized request arguments supplied: include, prompt_cache_key" }, ["include", "prompt_cache_key"]],
    ["Go", { message: 'json: unknown field "prompt_cache_key"' }, ["prompt_cache_key"]],
    ["serde", { message: "Failed to deserialize the JSON body into the target type: unknown field `include`, expected one of `model`, `input`" }, ["include"]],
    ["pydantic (vLLM)", { message: "[{'type': 'extra_forbidden', 'loc': ('body', 'prompt_cache_key'), 'msg': 'Extra inputs are not permitted', 'input': 'k'}]" }, ["prompt_cache_key"]],
    ["pydantic's text", { message: "1 validation error for ResponsesRequest\ninclude\n  Extra inputs are not permitted [type=extra_forbidden]" }, ["include"]],
    ["FastAPI's detail list, in the body's text", { message: "…", text: '{"detail":[{"type":"extra_forbidden","loc":["body","include"],"msg":"Extra inputs are not permitted"}]}' }, ["include"]],
    ["LM Studio (zod)", { message: "Unrecognized key(s) in object: 'prompt_cache_key', 'include'" }, ["include", "prompt_cache_key"]],
    ["Azure AI inference", { message: "Extra parameters ['reasoning'] are not allowed when extra-parameters is not set" }, ["reasoning"]],
    // a key of a replayed reasoning item in the input is not the top-level field of that name
    ["pydantic, a key inside an input item", { message: "1 validation error for ResponsesRequest\ninput.3.reasoning.encrypted_content\n  Extra inputs are not permitted [type=extra_forbidden]" }, []],
    ["pydantic's loc, inside an input item", { message: "[{'type': 'extra_forbidden', 'loc': ('body', 'input', 3, 'reasoning', 'summary'), 'msg': 'Extra inputs are not permitted', 'input': []}]" }, []],
    ["pydantic's loc, the top-level summary", { message: "[{'type': 'extra_forbidden', 'loc': ('body', 'reasoning', 'summary'), 'msg': 'Extra inputs are not permitted', 'input': 'auto'}]" }, ["reasoning.summary"]],
    // these stand
    ["a context overflow", { message: "Your input exceeds the context window of this model.", param: "input", code: "context_length_exceeded" }, []],
    ["a required field", { message: "Unrecognized request argument supplied: input" }, []],
    ["a field not sent", { message: "Unknown parameter: 'text'.", param: "text" }, []],
    ["nothing named", { message: "Bad request" }, []],
  ])("%s", (_who, detail, expected) => {
    expect(refused(detail).sort()).toEqual([...expected].sort());
  });

  it("counts only the fields the body carried", () => {
    const { prompt_cache_key: _k, ...noKey } = BODY;
    expect(refused({ message: 'json: unknown field "prompt_cache_key"' }, noKey)).toEqual([]);
    const { reasoning: _r, ...noReasoning } = BODY;
    expect(refused({ message: "Unknown parameter: 'reasoning.summary'." }, noReasoning)).toEqual([]);
  });
});
