// What a server's error body says: its message (and type, code, the field it blames) out of
// either provider's error shape or a compatible server's, and the error a refused request is.
import { isObj } from "./json.js";
import { ProviderError } from "./types.js";

export interface ErrorDetail {
  message: string;
  type?: string;
  code?: string;
  /** the request field the server blames (OpenAI's `error.param`) */
  param?: string;
}

/** A request the server refused as wrong (HTTP 400, 404, 422…), with what it said: its parsed
 * error and the body's text (as much of it as the transport reads, the key cut out). */
export class RequestRefused extends ProviderError {
  constructor(
    message: string,
    opts: ProviderError["opts"],
    readonly detail: ErrorDetail & { text: string },
  ) {
    super(message, "bad_request", opts);
  }
}

/** The message out of an error body of either provider, or of a compatible server. */
export function parseErrorBody(text: string): ErrorDetail {
  const trimmed = text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return { message: snippet(trimmed) };
  }
  const obj = isObj(parsed) ? parsed : undefined;
  const err = obj?.["error"];
  if (isObj(err)) {
    const out: ErrorDetail = { message: str(err["message"]) ?? snippet(JSON.stringify(err)) };
    const type = str(err["type"]);
    const code = str(err["code"]) ?? (typeof err["code"] === "number" ? String(err["code"]) : undefined);
    const param = str(err["param"]);
    if (type) out.type = type;
    if (code) out.code = code;
    if (param) out.param = param;
    return out;
  }
  if (typeof err === "string") return { message: err };
  const message = str(obj?.["message"]) ?? str(obj?.["detail"]);
  return { message: message ?? snippet(trimmed) };
}

export function providerMessage(text: string): string {
  return parseErrorBody(text).message;
}

function str(x: unknown): string | undefined {
  return typeof x === "string" && x.length > 0 ? x : undefined;
}

function snippet(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 300 ? `${one.slice(0, 300)}…` : one;
}
