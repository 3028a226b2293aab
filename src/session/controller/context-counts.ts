// `context ID --count-tokens`: exact counts of the request a session last sent, asked of
// Anthropic's count_tokens from the body kept beside its capture (context/count-body.ts),
// labelled as the context pane labels them. Where they cannot be had (an OpenAI request, no
// body kept, the inspector pending, no key, the server failing) the answer says why and
// holds no figure: the estimates stay the only counts, named by their method.
import type { Settings } from "../../config/resolve.js";
import type { InspectorView } from "../../context/types.js";
import type { StoredCountBody } from "../store/types.js";
import { DEFAULT_BASE_URL } from "../../provider/base-urls.js";
import { messageOf } from "../../record/errors.js";

export type ExactCountReport =
  | {
      available: true;
      /** "count_tokens (anthropic)", as the pane says */
      method: string;
      /** when the counts were asked (ISO 8601) */
      askedAt: string;
      /** the capture counted: its capturedAt */
      of: string;
      /** the server asked (the one configured now, which may not be the one the request went to) */
      server: string;
      total: number;
      sections: Array<{ source: string; tokens: number }>;
    }
  | { available: false; reason: string; of?: string };

interface Deps {
  countBody(sessionId: string): Promise<StoredCountBody | undefined>;
}

/** The Anthropic key and server a count is asked with, as a run would settle them now. */
export function countCredentials(s: Settings): { apiKey?: string; baseUrl: string } {
  const apiKey = s.credentials.keys.anthropic;
  const baseUrl = (s.provider === "anthropic" ? s.baseUrl : undefined) ?? s.credentials.baseUrls.anthropic ?? DEFAULT_BASE_URL.anthropic;
  return { ...(apiKey ? { apiKey } : {}), baseUrl };
}

export async function exactCounts(store: Deps, sessionId: string, view: InspectorView, o: { apiKey?: string; baseUrl: string; now?: () => Date }): Promise<ExactCountReport> {
  if (view.state === "pending") return { available: false, reason: `the inspector is pending (${view.reason}): there is no request to count` };
  const of = view.meta.capturedAt;
  if (view.meta.provider === "openai") {
    const method = view.sections[0]?.estimate.method ?? "the tokenizer";
    return { available: false, of, reason: `openai has no provider count: the sections' estimates (${method}) are the tokenizer's, and the only counts there are` };
  }
  const kept = await store.countBody(sessionId);
  if (!kept || kept.capturedAt !== of) {
    return {
      available: false,
      of,
      reason: "no request body was kept with this capture (it was made before albedo-tui kept them, was larger than 8 MB gzip'd, or could not be written), so it cannot be counted exactly now; the pane's count key or the config's countTokens \"each request\" counts the next one",
    };
  }
  if (!o.apiKey) return { available: false, of, reason: "no Anthropic key to ask count_tokens with: set ANTHROPIC_API_KEY (or anthropicApiKey in the config)" };
  try {
    const [{ unpackCountBody }, { countSections }] = await Promise.all([import("../../context/count-body.js"), import("../../provider/anthropic/count-tokens.js")]);
    const body = await unpackCountBody(kept.gz);
    const c = await countSections(body, kept.sources, { baseUrl: o.baseUrl, apiKey: o.apiKey }, o.now);
    return { available: true, method: c.method, askedAt: c.askedAt, of, server: new URL(o.baseUrl).origin, total: c.total, sections: c.sections };
  } catch (e) {
    return { available: false, of, reason: messageOf(e) };
  }
}

/** The report as the text summary's last lines. */
export function formatExactCounts(r: ExactCountReport): string {
  if (!r.available) return `exact counts: none (${r.reason})`;
  const parts = r.sections.map((s) => `${s.source} ${s.tokens.toLocaleString("en-US")}`).join(" · ");
  return `exact, ${r.method}, asked ${r.askedAt} of ${r.server}: total ${r.total.toLocaleString("en-US")} tokens · ${parts}`;
}
