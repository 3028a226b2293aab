// What the inspector records of the last request and shows page by page
// (docs/architecture.md, Design rules).
import type { ProviderName, Usage } from "../provider/types.js";
import type { RequestPrint } from "./change.js";

export const PAGE_CHARS = 8000;

export type SectionKind = "system" | "context" | "history" | "tools";

export interface TokenEstimate {
  tokens: number;
  /** e.g. "o200k tokenizer" or "chars/4" */
  method: string;
}

export interface SectionSummary {
  index: number;
  kind: SectionKind;
  /** "system", "AGENTS.md", "workspace facts", "history", "tools" */
  source: string;
  items: number;
  /** exact UTF-8 bytes of the content as sent, bodies included */
  bytes: number;
  estimate: TokenEstimate;
  /** bounded preview of the inspectable text */
  preview: string;
  /** length of the inspectable text in UTF-16 code units, and its number of pages */
  chars: number;
  pages: number;
  /** bytes - the same section's bytes in the previous capture; null when there was none */
  deltaBytes: number | null;
  /** how the provider shapes the items, where that differs by provider: history's wire
   * messages by role ("4 user, 4 assistant, 3 tool messages"); absent in older captures */
  shape?: string;
}

export interface CaptureMeta {
  provider: ProviderName;
  model: string;
  capturedAt: string;
  /** 1-based iteration of the model/tool loop within its turn */
  iteration: number;
  contextWindow?: number;
  totalBytes: number;
  /** usage the provider reported for the previous response, when there was one */
  providerUsage?: Usage;
  /** what compaction left out of this request, in words, when it did anything */
  compaction?: string;
  /** what differs from the previous request and where the cached prefix broke
   * ("history changed from item 14: microcompact blurred 3 outputs"; context/change.ts) */
  change?: string;
  /** where the previous request's cached prefix broke: the first part, in the provider's
   * prefix order, whose bytes changed (context/change.ts, describeCacheBreak) */
  cacheBreak?: string;
}

export interface Capture {
  meta: CaptureMeta;
  sections: SectionSummary[];
  /** pages[i] are the 8,000-character pages of section i's inspectable text */
  pages: string[][];
  /** the request's print, stored for the next request's change line (not shown) */
  print?: RequestPrint;
}

export type InspectorView =
  | { state: "pending"; reason: string; since: string }
  | { state: "current"; meta: CaptureMeta; sections: SectionSummary[] };

export interface Page {
  section: number;
  page: number;
  pages: number;
  text: string;
}
