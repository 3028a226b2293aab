// zod schemas for what is read back from the database (stored JSON is outside input).
import { z } from "zod";
import type { Block } from "./types.js";
import { messageOf } from "./errors.js";

const opaque = z.object({ kind: z.string(), body: z.string() });

const blockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string(), phase: z.enum(["commentary", "final_answer"]).exactOptional() }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal("tool_result"),
    toolUseId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
  }),
  z.object({ type: z.literal("reasoning"), text: z.string(), opaque: opaque.exactOptional() }),
  z.object({
    type: z.literal("image"),
    mediaType: z.string(),
    data: z.string(),
    bytes: z.number().int().nonnegative(),
    width: z.number().int().positive().exactOptional(),
    height: z.number().int().positive().exactOptional(),
    refused: z.string().exactOptional(),
  }),
]);

export const blocksSchema = z.array(blockSchema);

// Compile-time check that the schema and the Block union describe the same thing.
type Parsed = z.infer<typeof blockSchema>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameShape: Same<Parsed, Block> = true;
void _sameShape;

export const roleSchema = z.enum(["user", "assistant"]);
export const statusSchema = z.enum(["complete", "interrupted"]);

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The common blocks (text, tool_use, tool_result, reasoning) checked by hand: zod's check of
 * each message's blocks keeps loading 10,000 messages above 1.5× the bare SELECT. Each
 * condition is blockSchema's own and the value is what it gives (a new object
 * of the declared fields); a block of another kind, or one that fails here, sends the whole
 * array to zod, which also words the error. test/unit/blocks-fast-path.test.ts holds the two
 * to the same answers on random and damaged rows.
 */
function fastBlock(v: unknown): Block | undefined {
  if (!isObj(v)) return undefined;
  switch (v["type"]) {
    case "text": {
      const { text, phase } = v;
      if (typeof text !== "string") return undefined;
      if (phase === undefined) return { type: "text", text };
      return phase === "commentary" || phase === "final_answer" ? { type: "text", text, phase } : undefined;
    }
    case "tool_use": {
      const { id, name } = v;
      // zod wants the input field present, whatever its value
      if (typeof id !== "string" || typeof name !== "string" || !("input" in v)) return undefined;
      return { type: "tool_use", id, name, input: v["input"] };
    }
    case "tool_result": {
      const { toolUseId, name, output, isError } = v;
      if (typeof toolUseId !== "string" || typeof name !== "string" || typeof output !== "string" || typeof isError !== "boolean") {
        return undefined;
      }
      return { type: "tool_result", toolUseId, name, output, isError };
    }
    case "reasoning": {
      const { text, opaque: o } = v;
      if (typeof text !== "string") return undefined;
      if (o === undefined) return { type: "reasoning", text };
      if (!isObj(o) || typeof o["kind"] !== "string" || typeof o["body"] !== "string") return undefined;
      return { type: "reasoning", text, opaque: { kind: o["kind"], body: o["body"] } };
    }
    default:
      return undefined; // images and anything else: zod
  }
}

function fastBlocks(raw: unknown): Block[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Block[] = [];
  for (const v of raw) {
    const b = fastBlock(v);
    if (!b) return undefined;
    out.push(b);
  }
  return out;
}

/** Parse stored blocks JSON; returns a readable reason instead of throwing. */
export function parseBlocks(json: string): { ok: true; blocks: Block[] } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `blocks are not valid JSON (${messageOf(e)})` };
  }
  const fast = fastBlocks(raw);
  if (fast) return { ok: true, blocks: fast };
  const r = blocksSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first ? first.path.join(".") : "";
    return { ok: false, error: `blocks fail validation at ${where || "(root)"}: ${first?.message ?? "invalid"}` };
  }
  return { ok: true, blocks: r.data as Block[] };
}
