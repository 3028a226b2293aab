// Reading the workflow files people bring from other agents (commands, skills, hook settings):
// folders of markdown in the workspace and in the user's config folder. A workspace is
// untrusted, so its files are read as AGENTS.md is (config/files.ts, readWorkspaceFileSync):
// only a regular file whose real path is inside the workspace, opened without following
// links, bounded in size; a folder walk follows no link and stops at a depth and a count.
// The user's own folder is theirs: its files are read bounded, links followed.
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { readStartFileSync, readWorkspaceFileSync, StartFileError } from "../config/files.js";
import { messageOf } from "../record/errors.js";

/** a command or skill file past this size is refused, by name */
export const MAX_WORKFLOW_FILE_BYTES = 256 * 1024;
/** a folder walk stops here: a hostile tree cannot make the start walk for ever */
const MAX_DEPTH = 4;
const MAX_ENTRIES = 500;

/** where a file comes from: the workspace (untrusted) or the user's config folder */
export type Origin = { kind: "workspace"; workspace: string } | { kind: "user" };

export interface FoundFile {
  /** path relative to the folder walked, with "/" between parts */
  rel: string;
  /** the path to show and to read */
  file: string;
}

/** Names a person types after "/": letters, digits, "-", "_", "." (":" joins namespaces). */
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function validNamePart(s: string): boolean {
  return NAME_PART.test(s);
}

/** Text from a file that is shown and sent: control characters become spaces, the length is cut. */
export function plainLine(s: unknown, max = 300): string {
  if (typeof s !== "string") return "";
  // C0, DEL and C1 controls (ESC and CSI among them), and the bidi overrides
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, " ").replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}

/**
 * The files with this extension under `dir` (workspace-relative for the workspace, absolute
 * for the user's), walked without following links into folders. `problems` gets a sentence
 * for what was skipped.
 */
export function listFiles(origin: Origin, dir: string, accept: (name: string) => boolean, problems: string[]): FoundFile[] {
  const root = origin.kind === "workspace" ? path.join(origin.workspace, dir) : dir;
  const out: FoundFile[] = [];
  let seen = 0;
  const walk = (abs: string, rel: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      const st = fs.lstatSync(abs);
      // the folder itself a link (a workspace's .claude/commands pointing elsewhere): not walked
      if (st.isSymbolicLink() && origin.kind === "workspace") {
        problems.push(`${abs} was not read: it is a link`);
        return;
      }
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") problems.push(`${abs} could not be listed (${code ?? messageOf(e)})`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of entries) {
      if (++seen > MAX_ENTRIES) {
        problems.push(`${root}: more than ${MAX_ENTRIES} entries; the rest were not read`);
        return;
      }
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (depth < MAX_DEPTH) walk(path.join(abs, d.name), childRel, depth + 1);
      } else if ((d.isFile() || d.isSymbolicLink()) && accept(d.name)) {
        // a link to a file is read through the boundary check, which refuses one out of the workspace
        out.push({ rel: childRel, file: path.join(abs, d.name) });
      } else if (accept(d.name)) {
        // a FIFO, socket or device under a command's name: never opened
        problems.push(`${path.join(abs, d.name)} was not read: it is not a regular file`);
      }
    }
  };
  walk(root, "", 0);
  return out;
}

/** The text of one found file, or a problem sentence naming it. */
export function readFound(origin: Origin, f: FoundFile, what: string): { text: string } | { problem: string } {
  try {
    const lim = { what, maxBytes: MAX_WORKFLOW_FILE_BYTES };
    const buf =
      origin.kind === "workspace" ? readWorkspaceFileSync(origin.workspace, path.relative(origin.workspace, f.file), lim) : readStartFileSync(f.file, lim);
    return { text: buf.toString("utf8") };
  } catch (e) {
    return { problem: e instanceof StartFileError ? e.message : `${what} ${f.file} could not be read: ${messageOf(e)}` };
  }
}

export interface FrontMatter {
  /** the fields, when the front matter is a mapping */
  fields: Record<string, unknown>;
  body: string;
  /** the front matter could not be parsed (the body is then the whole text) */
  problem?: string;
}

/** "---\nkey: value\n---\nbody": the YAML fields and the body. */
export function splitFrontMatter(text: string): FrontMatter {
  const t = text.replace(/^\uFEFF/, "");
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(t);
  if (!m) return { fields: {}, body: t };
  const body = t.slice(m[0].length);
  try {
    // aliases are bounded: a YAML bomb is refused, not expanded
    const v: unknown = parseYaml(m[1] ?? "", { maxAliasCount: 50, prettyErrors: false });
    if (v === null || v === undefined) return { fields: {}, body };
    if (typeof v !== "object" || Array.isArray(v)) return { fields: {}, body, problem: "its front matter is not a mapping of fields" };
    return { fields: v as Record<string, unknown>, body };
  } catch (e) {
    return { fields: {}, body, problem: `its front matter is not valid YAML (${plainLine(messageOf(e), 120)})` };
  }
}

/** A front-matter list field: "Bash, Read" or ["Bash", "Read"] */
export function listField(v: unknown): string[] {
  // a comma or a space between entries, but not inside "Bash(git add:*)"
  if (typeof v === "string") return v.split(/,|\s+(?![^(]*\))/).map((s) => plainLine(s, 100)).filter(Boolean);
  if (Array.isArray(v)) return v.map((s) => plainLine(s, 100)).filter(Boolean);
  return [];
}
