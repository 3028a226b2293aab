// The turn's one door into the record: every block is redacted on its way in, every stored
// message is told to the front ends (with its answer's id when it is a streamed answer),
// and every request is captured for the inspector just before it is sent.
import { wellFormedDeep } from "../../text/well-formed.js";
import type { AnswerUsage, Block, MessageStatus, StoredMessage } from "../../record/types.js";
import type { EncodedRequest, Request, Usage } from "../../provider/types.js";
import { encodeRequest } from "../../provider/encode.js";
import { captureEncoded } from "../../context/capture.js";
import { noRedaction } from "../../config/secrets.js";
import { redactBlocks } from "./redact.js";
import type { AnswerId } from "./events.js";
import type { TurnEnv } from "./env.js";

export function clean(env: TurnEnv, blocks: Block[]): Block[] {
  // nothing ill-formed is stored: it would go with every later request, and be refused
  return redactBlocks(wellFormedDeep(blocks), env.redact ?? noRedaction);
}

export async function append(
  env: TurnEnv,
  role: "user" | "assistant",
  raw: Block[],
  status: MessageStatus,
  answer?: AnswerId,
  usage?: AnswerUsage,
): Promise<StoredMessage> {
  const blocks = clean(env, raw);
  const msg = await env.store.appendMessage(env.sessionId, {
    role,
    blocks,
    status,
    ...(role === "assistant" ? { model: env.model } : {}),
    ...(usage ? { usage } : {}),
  });
  env.history.push(msg);
  env.events.emit(answer === undefined ? { type: "message", msg } : { type: "message", msg, answer });
  return msg;
}

export async function update(
  env: TurnEnv,
  msg: StoredMessage,
  raw: Block[],
  status: MessageStatus,
  answer?: AnswerId,
  usage?: AnswerUsage,
): Promise<void> {
  const blocks = clean(env, raw);
  await env.store.updateMessage(msg.id, blocks, status, usage);
  msg.blocks = blocks;
  msg.status = status;
  if (usage) msg.usage = usage;
  env.events.emit(answer === undefined ? { type: "message", msg } : { type: "message", msg, answer });
}

/** Records the request the provider is about to get, for the inspector, from the provider's own
 * encoding (what its server refused this session is left out of both). The capture is made
 * here, before the call: that is the record. Its write is queued now and runs alongside the
 * call (awaiting it would put a transaction and its fsync between Enter and the request).
 * `written` settles when it is stored; the store runs its statements one at a time in order,
 * so nothing of the answer can commit before it, and streamAnswer stores nothing of the answer
 * when it fails: a crash or a failed write loses the capture only together with the answer.
 * `resave` stores it again from the encoding the provider re-sends after a refused field
 * (StreamOptions.onResend), compared with the same previous request, so the record holds what
 * was sent last. */
export async function recordCapture(
  env: TurnEnv,
  req: Request,
  o: {
    iteration: number;
    note?: string | undefined;
    providerUsage?: Usage | undefined;
    /** a side request (the summary's): the next request is compared with the one before it */
    side?: boolean;
  },
): Promise<{ written: Promise<void>; resave: (enc: EncodedRequest) => Promise<void> }> {
  // What the capture is compared with (the previous request's section sizes, and its print:
  // where this one differs, the cache's break) is read alongside the call too: two reads
  // queued behind the prompt's write would be two more waits on the store before the request.
  const previous = Promise.all([env.store.lastSectionBytes(env.sessionId), env.store.lastRequestPrint(env.sessionId)]);
  const save = async (enc: EncodedRequest, capturedAt = new Date().toISOString()): Promise<void> => {
    const [previousBytes, previousPrint] = await previous;
    const capture = captureEncoded(req, enc, {
      iteration: o.iteration,
      capturedAt,
      ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
      ...(o.providerUsage ? { providerUsage: o.providerUsage } : {}),
      ...(previousBytes ? { previousBytes } : {}),
      print: { previous: previousPrint, ...(o.side ? { side: true } : {}) },
      ...(o.note && o.note !== "none" ? { compaction: o.note } : {}),
    });
    await env.store.saveCapture(env.sessionId, capture);
    env.onCaptured?.({ req, capturedAt, enc, sessionId: env.sessionId });
    env.events.emit({ type: "capture" });
  };
  // the request value, encoded once as the provider sends it, is held from here: the record
  const written = save(env.provider.encode?.(req) ?? encodeRequest(req));
  // handled by whoever awaits it (streamAnswer); never an unhandled rejection meanwhile
  written.catch(() => undefined);
  return { written, resave: save };
}
