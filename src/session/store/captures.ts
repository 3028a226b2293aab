// The capture store: the inspector's capture of a session's last request (one row per
// session plus one row per 8,000-character page), and its pending state, over the shared
// connection (sqlite.ts).
import { createHash } from "node:crypto";
import type { Statement } from "sqlite3";
import { z } from "zod";
import { messageOf } from "../../record/errors.js";
import type { Capture, CaptureMeta, InspectorView, Page, SectionSummary } from "../../context/types.js";
import { requestPrintSchema, type RequestPrint } from "../../context/change.js";
import type { HistoryStore, StoredCountBody } from "./types.js";
import { type Connection, nowIso, stmtAll, stmtRun } from "./sqlite.js";
import { requireSession } from "./messages.js";

export const NO_REQUEST_YET = "no request has been sent in this session yet";

// ---------------------------------------------------------------------------------------
// zod schemas for the stored capture (stored JSON is outside input, like blocks).

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().exactOptional(),
  cacheWriteTokens: z.number().exactOptional(),
});

const metaSchema = z.object({
  provider: z.enum(["anthropic", "openai"]),
  model: z.string(),
  capturedAt: z.string(),
  iteration: z.number().int(),
  contextWindow: z.number().exactOptional(),
  totalBytes: z.number().int().nonnegative(),
  providerUsage: usageSchema.exactOptional(),
  compaction: z.string().exactOptional(),
  change: z.string().exactOptional(),
  cacheBreak: z.string().exactOptional(),
});

const sectionSchema = z.object({
  index: z.number().int().nonnegative(),
  kind: z.enum(["system", "context", "history", "tools"]),
  source: z.string(),
  items: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  estimate: z.object({ tokens: z.number(), method: z.string() }),
  preview: z.string(),
  chars: z.number().int().nonnegative(),
  pages: z.number().int().nonnegative(),
  deltaBytes: z.number().int().nullable(),
  // absent from captures stored before the field existed
  shape: z.string().exactOptional(),
});
const sectionsSchema = z.array(sectionSchema);

// Compile-time checks that the schemas and the context types describe the same thing.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameMeta: Same<z.infer<typeof metaSchema>, CaptureMeta> = true;
const _sameSection: Same<z.infer<typeof sectionSchema>, SectionSummary> = true;
void _sameMeta;
void _sameSection;

function parseJson<T>(schema: z.ZodType<T>, json: string): { ok: true; value: T } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `not valid JSON (${messageOf(e)})` };
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const first = r.error.issues[0];
    return { ok: false, error: `fails validation at ${first?.path.join(".") || "(root)"}: ${first?.message ?? "invalid"}` };
  }
  return { ok: true, value: r.data };
}

// A capture row as SQLite returns it.
interface CaptureRow {
  meta_json: string | null;
  sections_json: string | null;
  pending_reason: string | null;
  pending_since: string | null;
}

function isNonNegInt(n: number): boolean {
  return Number.isInteger(n) && n >= 0;
}

interface Statements {
  getCapture: Statement;
  insertPage: Statement;
  putPage: Statement;
  dropPagesFrom: Statement;
  dropSectionsFrom: Statement;
  getPage: Statement;
}

/** The pages of the capture this store last wrote, by a digest of each page's text, and the
 * meta JSON that identifies that capture's row. */
interface WrittenPages {
  sessionId: string;
  meta: string;
  digests: string[][];
}

function pageDigest(text: string): string {
  return createHash("sha1").update(text).digest("base64");
}

type CaptureMethods = "saveCapture" | "setPending" | "inspectorView" | "capturePage" | "lastSectionBytes" | "lastRequestPrint" | "saveCountBody" | "countBody";

const printRowSchema = z.object({ print: requestPrintSchema });

/** A capture as this store last wrote it: its two JSON columns and the values they hold. */
interface Written {
  meta: string;
  sections: string;
  value: { meta: CaptureMeta; sections: SectionSummary[]; print: RequestPrint | undefined };
}

export class CaptureStore implements Pick<HistoryStore, CaptureMethods> {
  /**
   * The last capture written through this store, by its JSON. Reading back a row that is
   * exactly what was written needs no parse and no check: zod's check of the stored capture
   * would run at every read (the status line's figure after each request, the next request's
   * comparison), and its first use compiles the schemas (~12 ms while an answer's first words
   * arrive). A row that differs in any byte is parsed and checked.
   */
  private written: Written | undefined;
  /**
   * The pages of the last capture written, as digests. A request carries the whole history,
   * so consecutive captures share every page but the last few: only the pages that differ are
   * written. Rewriting them all made each turn's write grow with the session (a 1,000-turn
   * session wrote ~50 pages, ~400 kB, a turn), and with it the work SQLite does on libuv's
   * threads, whose malloc arenas keep what they once held (docs/performance.md).
   */
  private writtenPages: WrittenPages | undefined;

  private constructor(
    private readonly conn: Connection,
    private readonly s: Statements,
  ) {}

  static async prepare(conn: Connection): Promise<CaptureStore> {
    const p = (sql: string) => conn.prepare(sql);
    return new CaptureStore(conn, {
      getCapture: await p(
        "SELECT meta_json, sections_json, pending_reason, pending_since FROM captures WHERE session_id = ?",
      ),
      insertPage: await p("INSERT INTO capture_pages (session_id, section, page, text) VALUES (?, ?, ?, ?)"),
      putPage: await p(
        "INSERT INTO capture_pages (session_id, section, page, text) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (session_id, section, page) DO UPDATE SET text = excluded.text",
      ),
      dropPagesFrom: await p("DELETE FROM capture_pages WHERE session_id = ? AND section = ? AND page >= ?"),
      dropSectionsFrom: await p("DELETE FROM capture_pages WHERE session_id = ? AND section >= ?"),
      getPage: await p("SELECT text FROM capture_pages WHERE session_id = ? AND section = ? AND page = ?"),
    });
  }

  saveCapture(sessionId: string, capture: Capture): Promise<void> {
    // A capture whose page lists disagree with its sections would page wrongly forever.
    if (capture.pages.length !== capture.sections.length) {
      return Promise.reject(
        new Error(`capture has ${capture.sections.length} sections but ${capture.pages.length} page lists`),
      );
    }
    for (const [i, sec] of capture.sections.entries()) {
      const n = capture.pages[i]?.length ?? 0;
      if (sec.index !== i || sec.pages !== n) {
        return Promise.reject(
          new Error(`capture section ${i} (index ${sec.index}) declares ${sec.pages} pages but has ${n}`),
        );
      }
    }
    // the print rides in the meta row under its own key; reading the view drops it (metaSchema
    // strips what it does not name), so it is never shown, only compared (lastRequestPrint)
    const meta = JSON.stringify(capture.print ? { ...capture.meta, print: capture.print } : capture.meta);
    const sections = JSON.stringify(capture.sections);
    this.written = { meta, sections, value: { meta: capture.meta, sections: capture.sections, print: capture.print } };
    const digests = capture.pages.map((pages) => pages.map(pageDigest));
    return this.conn.tx(async () => {
      const before = this.writtenPages;
      // a failed write leaves the pages unknown: the next capture writes them all
      this.writtenPages = undefined;
      await requireSession(this.conn, sessionId);
      // the stored pages are the ones written last only while the capture row is (another
      // process may have written this session's capture since)
      const [row] = before?.sessionId === sessionId ? await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]) : [];
      const kept = before && row?.meta_json === before.meta ? before.digests : undefined;
      if (!kept) await this.conn.run("DELETE FROM capture_pages WHERE session_id = ?", [sessionId]);
      await this.conn.run(
        `INSERT INTO captures (session_id, meta_json, sections_json, pending_reason, pending_since, captured_at)
         VALUES (?, ?, ?, NULL, NULL, ?)
         ON CONFLICT (session_id) DO UPDATE SET meta_json = excluded.meta_json,
           sections_json = excluded.sections_json, pending_reason = NULL, pending_since = NULL,
           captured_at = excluded.captured_at`,
        [sessionId, meta, sections, capture.meta.capturedAt],
      );
      if (!kept) {
        for (const [section, pages] of capture.pages.entries()) {
          for (const [page, text] of pages.entries()) await stmtRun(this.s.insertPage, [sessionId, section, page, text]);
        }
      } else {
        if (kept.length > capture.pages.length) await stmtRun(this.s.dropSectionsFrom, [sessionId, capture.pages.length]);
        for (const [section, pages] of capture.pages.entries()) {
          const old = kept[section] ?? [];
          if (old.length > pages.length) await stmtRun(this.s.dropPagesFrom, [sessionId, section, pages.length]);
          for (const [page, text] of pages.entries()) {
            if (old[page] !== digests[section]![page]) await stmtRun(this.s.putPage, [sessionId, section, page, text]);
          }
        }
      }
      this.writtenPages = { sessionId, meta, digests };
    });
  }

  setPending(sessionId: string, reason: string): Promise<void> {
    return this.conn.tx(async () => {
      await requireSession(this.conn, sessionId);
      // `since` is when the view went stale: a second change updates the reason only.
      await this.conn.run(
        `INSERT INTO captures (session_id, pending_reason, pending_since) VALUES (?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET pending_reason = excluded.pending_reason,
           pending_since = COALESCE(captures.pending_since, excluded.pending_since)`,
        [sessionId, reason, nowIso()],
      );
    });
  }

  inspectorView(sessionId: string): Promise<InspectorView> {
    return this.conn.serial(async () => {
      const session = await requireSession(this.conn, sessionId);
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (row?.pending_reason != null) {
        return { state: "pending", reason: row.pending_reason, since: row.pending_since ?? session.created_at };
      }
      if (!row || row.meta_json === null || row.sections_json === null) {
        return { state: "pending", reason: NO_REQUEST_YET, since: session.created_at };
      }
      const w = this.same(row);
      if (w) return { state: "current", meta: { ...w.meta }, sections: w.sections.map((s) => ({ ...s })) };
      const meta = parseJson(metaSchema, row.meta_json);
      const sections = parseJson(sectionsSchema, row.sections_json);
      if (!meta.ok || !sections.ok) {
        // Never show a capture we cannot read as if it were current.
        const why = !meta.ok ? `meta ${meta.error}` : !sections.ok ? `sections ${sections.error}` : "";
        return {
          state: "pending",
          reason: `the stored capture could not be read (${why}); it is replaced by the next request`,
          since: session.created_at,
        };
      }
      return { state: "current", meta: meta.value, sections: sections.value };
    });
  }

  capturePage(sessionId: string, section: number, page: number): Promise<Page | undefined> {
    if (!isNonNegInt(section) || !isNonNegInt(page)) return Promise.resolve(undefined);
    return this.conn.serial(async () => {
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (!row || row.pending_reason !== null || row.sections_json === null) return undefined;
      const w = this.same(row);
      const sections = w ? { ok: true as const, value: w.sections } : parseJson(sectionsSchema, row.sections_json);
      if (!sections.ok) return undefined;
      const sec = sections.value[section];
      if (!sec || page >= sec.pages) return undefined;
      const [p] = await stmtAll<{ text: string }>(this.s.getPage, [sessionId, section, page]);
      if (!p) return undefined;
      return { section, page, pages: sec.pages, text: p.text };
    });
  }

  lastRequestPrint(sessionId: string): Promise<RequestPrint | undefined> {
    return this.conn.serial(async () => {
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (!row || row.meta_json === null) return undefined;
      const w = this.same(row);
      if (w) return w.print;
      // an older capture has no print, and one that cannot be read is no basis to compare with
      const r = parseJson(printRowSchema, row.meta_json);
      return r.ok ? r.value.print : undefined;
    });
  }

  lastSectionBytes(sessionId: string): Promise<Map<string, number> | undefined> {
    return this.conn.serial(async () => {
      const [row] = await stmtAll<CaptureRow>(this.s.getCapture, [sessionId]);
      if (!row || row.sections_json === null) return undefined;
      const w = this.same(row);
      const sections = w ? { ok: true as const, value: w.sections } : parseJson(sectionsSchema, row.sections_json);
      if (!sections.ok) return undefined;
      const out = new Map<string, number>();
      // Two sections with the same kind and source (rare) are compared as one.
      for (const s of sections.value) {
        const key = `${s.kind}:${s.source}`;
        out.set(key, (out.get(key) ?? 0) + s.bytes);
      }
      return out;
    });
  }

  /** Keeps the count_tokens body of the capture made at `capturedAt` (gzip'd JSON), over the
   * session's previous one; nothing when that capture is no longer the session's. */
  saveCountBody(sessionId: string, body: StoredCountBody): Promise<void> {
    return this.conn.serial(async () => {
      await this.conn.run(
        `INSERT INTO capture_bodies (session_id, captured_at, sources_json, body_gz)
         SELECT session_id, ?, ?, ? FROM captures WHERE session_id = ? AND captured_at = ? AND pending_reason IS NULL
         ON CONFLICT (session_id) DO UPDATE SET captured_at = excluded.captured_at,
           sources_json = excluded.sources_json, body_gz = excluded.body_gz`,
        [body.capturedAt, JSON.stringify(body.sources), body.gz, sessionId, body.capturedAt],
      );
    });
  }

  /** The count_tokens body kept for the session's last capture, whichever capture it was made
   * of (the caller compares capturedAt with the view's). */
  countBody(sessionId: string): Promise<StoredCountBody | undefined> {
    return this.conn.serial(async () => {
      const rows = await this.conn.all<{ captured_at: string; sources_json: string; body_gz: Buffer }>(
        "SELECT captured_at, sources_json, body_gz FROM capture_bodies WHERE session_id = ?",
        [sessionId],
      );
      const row = rows[0];
      if (!row) return undefined;
      const sources = parseJson(z.array(z.string()), row.sources_json);
      if (!sources.ok || !Buffer.isBuffer(row.body_gz)) return undefined;
      return { capturedAt: row.captured_at, sources: sources.value, gz: row.body_gz };
    });
  }

  /** the values of a row that holds exactly what this store last wrote, else undefined */
  private same(row: CaptureRow): Written["value"] | undefined {
    const w = this.written;
    return w && row.meta_json === w.meta && row.sections_json === w.sections ? w.value : undefined;
  }
}
