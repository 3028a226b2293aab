// What outlives the screen: the unsent draft, the prompt history of the workspace (as a shell
// keeps its history), and a turn that goes on after its terminal hung up. Files in the state
// folder (0600 in 0700 folders), each bounded, everything redacted and stripped of control
// characters before it is written:
//
//   drafts/<session id>.txt           the prompt left unsent (a new session's: new-<workspace>)
//   history/<workspace>.jsonl         the prompts sent in the workspace, newest last, bounded
//   detached/<workspace>-<id>.json    how a turn that went on without its terminal ended
//
// <workspace> is a digest of the workspace's path, so no path is a file name. A file that is
// missing, damaged or too large is treated as empty: none of this may stop a start.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { HangupChoice } from "../../config/config.js";
import { ensurePrivateDir } from "../../config/paths.js";
import type { PermissionAnswer, PermissionRequest } from "../../tools/types.js";
import type { EventHub } from "../turn/events.js";

/** a draft is cut at this many characters */
export const DRAFT_MAX_CHARS = 1024 * 1024;
/** the history keeps this many prompts of a workspace */
export const HISTORY_MAX_ENTRIES = 500;
/** a prompt longer than this is not kept in the history (the record has it) */
export const HISTORY_MAX_CHARS = 16 * 1024;
/** the history file is read only up to this size */
const HISTORY_MAX_FILE = 16 * 1024 * 1024;

export interface AlongsideDeps {
  /** the folder of these files (absent: none of this is kept) */
  dir: string | undefined;
  workspace: string;
  hub: EventHub;
  redact: (s: string) => string;
  session: () => { id: string; stored: boolean };
  busy: () => boolean;
  interrupt: () => void;
  /** the turn goes on detached: other processes are told (open-marks.ts) */
  detached?: () => void;
}

/** Where the front ends reach it (Controller.alongside). */
export interface AlongsideControl {
  /** the draft left unsent in the open session, if any */
  draft(): string | undefined;
  /** keeps the prompt's unsent text with the session (empty: removes it); synchronous, as it runs on the way out */
  saveDraft(text: string): void;
  /** the workspace's prompts, oldest first */
  history(): string[];
  /** a prompt sent: it joins the workspace's history */
  remember(text: string): void;
  /** notes of turns that went on without their terminal in this workspace, said once */
  detachedNotes(): string[];
  /**
   * The terminal hung up during a turn: the turn goes on to its end, each permission question
   * answered "no" ("continue") or the turn stopped at the first ("quit"). `open`: the tools
   * of the questions on screen at that moment, which the caller answers "no". Resolves once
   * the turn has ended, its note written.
   */
  detach(mode: HangupChoice, open?: string[]): Promise<void>;
}

/** text as it may be kept: redacted, no control characters but newline and tab */
function keepable(text: string, redact: (s: string) => string): string {
  // eslint-disable-next-line no-control-regex
  return redact(text).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
}

function digest(s: string): string {
  return crypto.createHash("sha256").update(s).digest("hex").slice(0, 16);
}

function readSmall(file: string, max: number): string | undefined {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > max) return undefined;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function writePrivate(file: string, text: string): void {
  ensurePrivateDir(path.dirname(file), { tighten: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export class Alongside implements AlongsideControl {
  private mode: HangupChoice | undefined;
  private denied: string[] = [];
  private stoppedAt: string | undefined;

  constructor(private readonly d: AlongsideDeps) {}

  private get ws(): string {
    return digest(path.resolve(this.d.workspace));
  }

  private draftFile(): string | undefined {
    if (!this.d.dir) return undefined;
    const s = this.d.session();
    return path.join(this.d.dir, "drafts", s.stored ? `${s.id.replace(/[^A-Za-z0-9_-]/g, "_")}.txt` : `new-${this.ws}.txt`);
  }

  draft(): string | undefined {
    const f = this.draftFile();
    if (!f) return undefined;
    const text = readSmall(f, DRAFT_MAX_CHARS * 4);
    return text ? keepable(text, this.d.redact).slice(0, DRAFT_MAX_CHARS) || undefined : undefined;
  }

  saveDraft(text: string): void {
    const f = this.draftFile();
    if (!f) return;
    try {
      const kept = keepable(text, this.d.redact).slice(0, DRAFT_MAX_CHARS);
      if (kept.trim()) writePrivate(f, kept);
      else fs.rmSync(f, { force: true });
    } catch {
      // the state folder cannot be written: the draft is lost as it was before drafts were kept
    }
  }

  private historyFile(): string | undefined {
    return this.d.dir ? path.join(this.d.dir, "history", `${this.ws}.jsonl`) : undefined;
  }

  history(): string[] {
    const f = this.historyFile();
    const raw = f ? readSmall(f, HISTORY_MAX_FILE) : undefined;
    if (!raw) return [];
    const out: string[] = [];
    for (const line of raw.split("\n")) {
      if (!line) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === "string" && v.length <= HISTORY_MAX_CHARS) out.push(keepable(v, this.d.redact));
      } catch {
        // a damaged line is skipped
      }
    }
    return out.slice(-HISTORY_MAX_ENTRIES);
  }

  remember(text: string): void {
    const f = this.historyFile();
    const kept = keepable(text, this.d.redact).trim();
    if (!f || !kept || kept.length > HISTORY_MAX_CHARS) return;
    try {
      const all = this.history().filter((h) => h !== kept);
      all.push(kept);
      writePrivate(f, all.slice(-HISTORY_MAX_ENTRIES).map((h) => JSON.stringify(h)).join("\n") + "\n");
    } catch {
      // not kept: the session's own record still has it
    }
  }

  // ---- hanging up ------------------------------------------------------------------------------

  /** the permission asker while detached; `ask` the screen's otherwise */
  ask(req: PermissionRequest, ask: (req: PermissionRequest) => Promise<PermissionAnswer>): Promise<PermissionAnswer> {
    if (this.mode === undefined) return ask(req);
    this.denied.push(req.tool);
    if (this.mode === "quit" && this.stoppedAt === undefined) {
      this.stoppedAt = req.tool;
      this.d.interrupt();
    }
    return Promise.resolve("deny");
  }

  detach(mode: HangupChoice, open: string[] = []): Promise<void> {
    this.mode = mode;
    if (!this.d.busy()) return Promise.resolve();
    this.d.detached?.();
    for (const tool of open) {
      this.denied.push(tool);
      if (mode === "quit" && this.stoppedAt === undefined) {
        this.stoppedAt = tool;
        this.d.interrupt();
      }
    }
    return new Promise((resolve) => {
      let done = false;
      const finish = (how: string): void => {
        if (done) return;
        done = true;
        off();
        clearInterval(poll);
        this.writeNote(how);
        resolve();
      };
      const off = this.d.hub.subscribe((e) => {
        if (e.type !== "turn_end") return;
        finish(e.ok ? "completed" : e.interrupted ? "stopped" : `failed: ${e.error ?? "unknown error"}`);
      });
      // a prompt that never became a turn ends with no turn_end
      const poll = setInterval(() => {
        if (!this.d.busy()) finish("ended");
      }, 1000);
    });
  }

  private writeNote(how: string): void {
    if (!this.d.dir) return;
    const s = this.d.session();
    const note = {
      session: s.id,
      endedAt: new Date().toISOString(),
      how,
      mode: this.mode,
      denied: this.denied,
      ...(this.stoppedAt ? { stoppedAt: this.stoppedAt } : {}),
    };
    try {
      writePrivate(path.join(this.d.dir, "detached", `${this.ws}-${s.id.replace(/[^A-Za-z0-9_-]/g, "_")}.json`), JSON.stringify(note));
    } catch {
      // not said at the next start; the record still holds the turn
    }
  }

  detachedNotes(): string[] {
    if (!this.d.dir) return [];
    const dir = path.join(this.d.dir, "detached");
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.startsWith(`${this.ws}-`) && n.endsWith(".json"));
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const n of names.sort()) {
      const f = path.join(dir, n);
      const raw = readSmall(f, 64 * 1024);
      fs.rmSync(f, { force: true });
      if (raw) out.push(sayNote(raw, this.d.session().id, this.d.redact));
    }
    return out;
  }
}

/** one note as a sentence for the transcript */
function sayNote(raw: string, openId: string, redact: (s: string) => string): string {
  let n: { session?: unknown; endedAt?: unknown; how?: unknown; mode?: unknown; denied?: unknown; stoppedAt?: unknown };
  try {
    n = JSON.parse(raw) as typeof n;
  } catch {
    return "A turn went on after its terminal hung up; its note could not be read (the session's record holds the turn).";
  }
  const id = typeof n.session === "string" ? keepable(n.session, redact).slice(0, 64) : "?";
  const when = typeof n.endedAt === "string" ? keepable(n.endedAt, redact).slice(0, 40) : "?";
  const how = typeof n.how === "string" ? keepable(n.how, redact).slice(0, 300) : "ended";
  const denied = Array.isArray(n.denied) ? n.denied.filter((x): x is string => typeof x === "string").map((x) => keepable(x, redact).slice(0, 80)) : [];
  const stopped = typeof n.stoppedAt === "string" ? keepable(n.stoppedAt, redact).slice(0, 80) : undefined;
  const which = id === openId ? "This session's last turn" : `The last turn of session ${id.slice(0, 8)} (--resume ${id})`;
  let s = `${which} went on after the terminal hung up and finished detached at ${when}: ${how}.`;
  if (stopped) s += ` It stopped at its first permission question (${stopped}), as "hangup": "quit" asks.`;
  else if (denied.length > 0) s += ` ${denied.length} permission question${denied.length > 1 ? "s were" : " was"} answered no (${[...new Set(denied)].join(", ")}).`;
  return s;
}
