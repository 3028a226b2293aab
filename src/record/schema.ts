// zod schemas for what is read back from the database (stored JSON is outside input).
import { z } from "zod";
import type { Block } from "./types.js";
import { messageOf } from "./errors.js";

const opaque = z.object({ kind: z.string(), body: z.string() });

export const blockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal("tool_result"),
    toolUseId: z.string(),
    name: z.string(),
    output: z.string(),
    isError: z.boolean(),
  }),
  z.object({ type: z.literal("reasoning"), text: z.string(), opaque: opaque.optional() }),
  z.object({
    type: z.literal("image"),
    mediaType: z.string(),
    data: z.string(),
    bytes: z.number().int().nonnegative(),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
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

/** Parse stored blocks JSON; returns a readable reason instead of throwing. */
export function parseBlocks(json: string): { ok: true; blocks: Block[] } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `blocks are not valid JSON (${messageOf(e)})` };
  }
  const r = blocksSchema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first ? first.path.join(".") : "";
    return { ok: false, error: `blocks fail validation at ${where || "(root)"}: ${first?.message ?? "invalid"}` };
  }
  return { ok: true, blocks: r.data as Block[] };
}
