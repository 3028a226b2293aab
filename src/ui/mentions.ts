// `@path` in the prompt: the workspace's files for fuzzy completion, and the content of each
// mentioned file as a block of its own in the prompt. The walk follows the .gitignore files
// (the checkpoints' matcher: linear in each name, whatever a hostile pattern says), never
// enters .git, follows no link, and gives the event loop back every few milliseconds, so
// 100,000 files cost one walk behind the typing. A mentioned file is read only inside the
// workspace: its real path must lie there (a link out is refused), opened without following
// a link swapped in meanwhile, at most MAX_MENTION_BYTES of it.
import fs from "node:fs";
import path from "node:path";
import { IgnoreRules, MAX_IGNORE_FILE_BYTES, parseIgnoreFile } from "../session/checkpoints/ignore.js";
import type { TextBlock } from "../record/types.js";
import { formatBytes, formatInt } from "./text.js";
import { mentionedPaths } from "./mention-word.js";
import { PathMatcher } from "./mention-match.js";

/** the index stops growing here: a home folder opened as a workspace must not eat the memory */
export const MAX_INDEXED_FILES = 300_000;
/** a mentioned file's content joins the prompt up to this many bytes */
export const MAX_MENTION_BYTES = 256 * 1024;
/** how long one slice of the walk runs before the event loop gets a turn */
const SLICE_MS = 8;

/** names a person cannot type as one `@word` (spaces) or see as they are (control characters) */
// eslint-disable-next-line no-control-regex
const UNTYPABLE = /[\s\u0000-\u001f\u007f-\u009f]/;

function readIgnore(file: string, base: string): ReturnType<typeof parseIgnoreFile> {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      if (!fs.fstatSync(fd).isFile()) return [];
      const b = Buffer.alloc(MAX_IGNORE_FILE_BYTES);
      const n = fs.readSync(fd, b, 0, b.length, 0);
      return parseIgnoreFile(b.subarray(0, n).toString("utf8"), base);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

/** The workspace's files, relative, "/" between names, as the walk found them. */
export async function listFiles(workspace: string, max = MAX_INDEXED_FILES): Promise<string[]> {
  const files: string[] = [];
  const root = new IgnoreRules(readIgnore(path.join(workspace, ".git", "info", "exclude"), ""));
  const stack: Array<{ rel: string; rules: IgnoreRules }> = [{ rel: "", rules: root }];
  let sliceStart = Date.now();
  while (stack.length > 0 && files.length < max) {
    if (Date.now() - sliceStart > SLICE_MS) {
      await new Promise((r) => setImmediate(r));
      sliceStart = Date.now();
    }
    const { rel, rules: above } = stack.pop()!;
    const abs = rel ? path.join(workspace, rel) : workspace;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      continue; // unreadable, or gone meanwhile
    }
    const rules = entries.some((e) => e.name === ".gitignore" && e.isFile()) ? above.with(readIgnore(path.join(abs, ".gitignore"), rel)) : above;
    for (const e of entries) {
      if (e.name === ".git") continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      // a link is never followed nor offered: where it points may be outside
      if (e.isDirectory()) {
        if (!rules.ignored(r, true)) stack.push({ rel: r, rules });
      } else if (e.isFile()) {
        if (UNTYPABLE.test(r) || rules.ignored(r, false)) continue;
        files.push(r);
        if (files.length >= max) break;
      }
    }
  }
  return files;
}

/** The files to complete from: walked off the keystroke path (at start-up once the screen is
 * idle, after each prompt, and when an `@` finds the list older than mention-complete.ts's STALE_MS), the old list
 * serving until the new one is in. Each key's match is mention-match.ts's. */
export class MentionIndex {
  private matcher = new PathMatcher([]);
  private building: Promise<void> | undefined;
  private walkedAt = 0;
  /** bumps when the list arrives: the screen shows candidates again */
  version = 0;

  constructor(private readonly workspace: string, private readonly onReady: () => void = () => undefined) {}

  /** starts (or starts again) the walk; the old list serves until the new one is in */
  refresh(): Promise<void> {
    this.building ??= listFiles(this.workspace).then(
      (files) => {
        this.matcher = new PathMatcher(files);
        this.walkedAt = Date.now();
        this.building = undefined;
        this.version++;
        this.onReady();
      },
      () => {
        this.building = undefined;
      },
    );
    return this.building;
  }

  ready(): boolean {
    return this.version > 0;
  }

  /** how long ago the list in use was walked */
  age(): number {
    return Date.now() - this.walkedAt;
  }

  get size(): number {
    return this.matcher.size;
  }

  /** the best matches for what follows the `@`, best first */
  find(query: string, limit = 8): string[] {
    return this.matcher.find(query, limit);
  }
}

/** what a mentioned file adds to the prompt, or why it adds nothing */
type Mention = { block: TextBlock; note?: string } | { note: string };

/** Reads one mentioned path, inside the workspace only; undefined when it names no file (an
 * `@` in prose). */
export async function readMention(workspace: string, rel: string): Promise<Mention | undefined> {
  let real: string;
  let realRoot: string;
  try {
    realRoot = await fs.promises.realpath(workspace);
    real = await fs.promises.realpath(path.resolve(workspace, rel));
  } catch {
    return undefined;
  }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    return { note: `@${rel} is outside the workspace (it leads to ${real}); it was not read` };
  }
  let fd: fs.promises.FileHandle;
  try {
    fd = await fs.promises.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = await fd.stat();
    if (!st.isFile()) return undefined;
    const want = Math.min(st.size, MAX_MENTION_BYTES);
    const buf = Buffer.alloc(want);
    const { bytesRead } = await fd.read(buf, 0, want, 0);
    const data = buf.subarray(0, bytesRead);
    if (data.subarray(0, 8192).includes(0)) return { note: `@${rel} looks binary (it holds NUL bytes); it was not added` };
    let text = data.toString("utf8");
    // a cut may split a character: drop its broken tail
    if (st.size > bytesRead) text = text.replace(/\uFFFD+$/, "");
    const shown = path.relative(realRoot, real).split(path.sep).join("/");
    const cut = st.size > bytesRead ? `\n[cut: the first ${formatInt(bytesRead)} bytes of ${formatInt(st.size)}; the read tool has the rest]` : "";
    const block: TextBlock = { type: "text", text: `<file path="${shown}">\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}</file>${cut}` };
    return cut ? { block, note: `@${rel}: only the first ${formatBytes(bytesRead)} of ${formatBytes(st.size)} were added` } : { block };
  } finally {
    await fd.close();
  }
}

/** the blocks of every file a prompt mentions, in order, and what a person should be told */
export async function mentionBlocks(workspace: string, prompt: string): Promise<{ blocks: TextBlock[]; notes: string[] }> {
  const blocks: TextBlock[] = [];
  const notes: string[] = [];
  for (const rel of mentionedPaths(prompt)) {
    const m = await readMention(workspace, rel);
    if (!m) continue;
    if ("block" in m) blocks.push(m.block);
    if (m.note) notes.push(m.note);
  }
  return { blocks, notes };
}
