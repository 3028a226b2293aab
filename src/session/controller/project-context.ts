// Extension context items: project instruction files and workspace facts. Each becomes its
// own item of the request (and its own section in the inspector), in this order.
//
// These files are read with no tool call and sent with every request, so a hostile
// repository must not be able to point them anywhere: an instruction file is read only
// when its real path is inside the workspace, it is a regular file, and the file opened is
// the file checked (no link swapped in between). Anything else becomes a one-line note in
// its section, so the person sees why it is missing. What is read passes the key redactor.
import fs from "node:fs/promises";
import { constants as C } from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import type { ContextItem } from "../../provider/types.js";
import { noRedaction, type Redactor } from "../../config/secrets.js";
import { isWithin } from "../../tools/paths.js";
import { fdRealPath } from "../../tools/files.js";
import { assertNever } from "../../record/types.js";

const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const;
/** instruction files past this size are cut, with a note, so one file cannot eat the window;
 * only this much is ever read */
export const MAX_INSTRUCTION_BYTES = 64 * 1024;

type InstructionRead =
  | { kind: "absent" }
  | { kind: "read"; text: string; size: number }
  | { kind: "refused"; why: string };

function kindOf(st: import("node:fs").Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a named pipe";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/**
 * Reads at most `max` bytes of `name` in the workspace, refusing whatever is not a regular
 * file whose real path is inside the workspace. Never follows a link out, never blocks on
 * a pipe, never reads more than `max` bytes.
 */
export async function readInsideWorkspace(workspace: string, name: string, max = MAX_INSTRUCTION_BYTES): Promise<InstructionRead> {
  const file = path.join(workspace, name);
  try {
    await fs.lstat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    return { kind: "refused", why: `it could not be checked (${code ?? String(e)})` };
  }
  let wsReal: string;
  let real: string;
  try {
    wsReal = await fs.realpath(workspace);
    real = await fs.realpath(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "refused", why: "it is a link to nothing" };
    if (code === "ELOOP") return { kind: "refused", why: "it is a loop of links" };
    return { kind: "refused", why: `it could not be resolved (${code ?? String(e)})` };
  }
  // the target's path is not named: it may itself be something the model should not learn
  if (!isWithin(wsReal, real)) return { kind: "refused", why: "it leads outside the workspace" };
  let handle: fs.FileHandle;
  try {
    // NOFOLLOW: a link swapped in after the check is refused, not followed; NONBLOCK: a
    // named pipe put in its place cannot hang the start
    handle = await fs.open(real, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { kind: "refused", why: "it changed into a link while being read" };
    return { kind: "refused", why: `it could not be opened (${code ?? String(e)})` };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { kind: "refused", why: `it is ${kindOf(st)}` };
    // a folder on the way swapped for a link between the check and the open
    const opened = await fdRealPath(handle);
    if (opened !== undefined && !isWithin(wsReal, opened)) return { kind: "refused", why: "it changed to lead outside the workspace while being read" };
    if (opened === undefined) {
      const now = await fs.stat(real).catch(() => undefined);
      if (!now || now.ino !== st.ino || now.dev !== st.dev) return { kind: "refused", why: "it changed while being read" };
    }
    const buf = Buffer.alloc(Math.min(st.size, max));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { kind: "read", text: buf.subarray(0, got).toString("utf8"), size: st.size };
  } finally {
    await handle.close();
  }
}

async function readInstruction(workspace: string, name: string, redact: Redactor): Promise<ContextItem | undefined> {
  const r = await readInsideWorkspace(workspace, name);
  switch (r.kind) {
    case "absent":
      return undefined;
    case "refused":
      return { source: name, text: `[${name} was not read: ${r.why}.]` };
    case "read": {
      let text = r.text;
      // a cut in the middle of a multi-byte character decodes to U+FFFD; drop it
      if (r.size > MAX_INSTRUCTION_BYTES) text = text.replace(/\uFFFD+$/, "") + `\n[${name} cut at 64 KB of ${r.size} bytes]`;
      return { source: name, text: redact(`Project instructions from ${name}:\n\n${text}`) };
    }
    default:
      assertNever(r, "read");
  }
}

/** what one git command said: its exit code (undefined when git could not be run at all) */
interface GitRun {
  code: number | undefined;
  out: string;
  err: string;
  /** the spawn failure (ENOENT: no git) */
  failure?: string;
}

function git(workspace: string, args: string[]): Promise<GitRun> {
  return new Promise((resolve) => {
    // these commands read HEAD and refs only, never the index, so a repository's fsmonitor
    // hook cannot run; it is set off anyway, and no optional lock is taken
    execFile(
      "git",
      ["-c", "core.fsmonitor=false", "--no-optional-locks", ...args],
      { cwd: workspace, timeout: 2000, maxBuffer: 4096 },
      (err, out, errOut) => {
        const e = err as (Error & { code?: number | string | null; signal?: string | null }) | null;
        if (!e) resolve({ code: 0, out: String(out), err: String(errOut) });
        else if (typeof e.code === "number") resolve({ code: e.code, out: String(out), err: String(errOut) });
        // no exit code: git could not be started (ENOENT), or was stopped at the time limit
        else resolve({ code: undefined, out: "", err: "", failure: typeof e.code === "string" ? e.code : e.signal ? "git did not answer within 2 s" : e.message });
      },
    );
  });
}

const firstLine = (s: string): string => (s.split("\n")[0] ?? "").trim().slice(0, 200);

/**
 * The workspace's git state as one fact line. HEAD is read with symbolic-ref, which works on a
 * branch with no commits yet (`git init` alone), where rev-parse --abbrev-ref HEAD fails and
 * would call the repository "not a repository".
 */
async function gitFact(workspace: string): Promise<string> {
  const [head, commit] = await Promise.all([
    git(workspace, ["symbolic-ref", "--quiet", "--short", "HEAD"]),
    git(workspace, ["rev-parse", "--verify", "--quiet", "--short", "HEAD"]),
  ]);
  if (head.code === undefined) return head.failure === "ENOENT" ? "Git: not checked (git is not installed)" : `Git: not checked (${head.failure ?? "git could not run"})`;
  const branch = firstLine(head.out);
  // exit 0: HEAD names a branch; 1: HEAD is a commit (detached); 128: no repository, or git refused it
  if (head.code === 0 && branch) return `Git branch: ${branch}${commit.code === 0 ? "" : " (no commits yet)"}`;
  if (head.code === 1 && commit.code === 0) return `Git: detached HEAD at ${firstLine(commit.out)}`;
  if (/not a git repository/i.test(head.err)) return "Git: not a repository";
  const said = firstLine(head.err.replace(/^(fatal|error): /, ""));
  return `Git: the repository could not be read${said ? ` (${said})` : ""}`;
}

async function workspaceFacts(workspace: string, now = new Date(), redact: Redactor = noRedaction): Promise<ContextItem> {
  const git = await gitFact(workspace);
  const lines = [
    `Workspace: ${workspace}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    `Platform: ${process.platform}`,
    git,
  ];
  return { source: "workspace facts", text: redact(lines.join("\n")) };
}

export async function loadProjectContext(workspace: string, redact: Redactor = noRedaction): Promise<ContextItem[]> {
  const items: ContextItem[] = [];
  for (const name of INSTRUCTION_FILES) {
    const item = await readInstruction(workspace, name, redact);
    if (item) items.push(item);
  }
  items.push(await workspaceFacts(workspace, new Date(), redact));
  return items;
}

export const SYSTEM_PROMPT = `You are albedo, a coding agent working in a terminal on the user's project.
Use the tools to look before you change anything: read files, list folders, search with grep and glob.
Make changes with edit (exact string replacement) or write, and check them by running commands with bash.
Paths are relative to the workspace root. Keep answers short and concrete; show what you changed and why.
Earlier turns appear as prose: "Tool use: NAME(INPUT)" and "Result (NAME): OUTPUT" record tool calls that already ran.
Never ask for or print secrets such as API keys.`;
