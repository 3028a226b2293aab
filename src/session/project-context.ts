// Extension context items: project instruction files and workspace facts. Each becomes its
// own item of the request (and its own section in the inspector), in this order.
import fs from "node:fs/promises";
import path from "node:path";
import { execFile } from "node:child_process";
import type { ContextItem } from "../provider/types.js";

export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const;
/** instruction files past this size are cut, with a note, so one file cannot eat the window */
const MAX_INSTRUCTION_BYTES = 64 * 1024;

async function readInstruction(workspace: string, name: string): Promise<ContextItem | undefined> {
  const file = path.join(workspace, name);
  let text: string;
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return undefined;
    text = await fs.readFile(file, "utf8");
  } catch {
    return undefined;
  }
  if (Buffer.byteLength(text) > MAX_INSTRUCTION_BYTES) {
    text = Buffer.from(text).subarray(0, MAX_INSTRUCTION_BYTES).toString("utf8") + `\n[${name} cut at 64 KB]`;
  }
  return { source: name, text: `Project instructions from ${name}:\n\n${text}` };
}

function gitBranch(workspace: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile("git", ["rev-parse", "--abbrev-ref", "HEAD"], { cwd: workspace, timeout: 2000 }, (err, out) => {
      resolve(err ? undefined : out.trim() || undefined);
    });
  });
}

export async function workspaceFacts(workspace: string, now = new Date()): Promise<ContextItem> {
  const branch = await gitBranch(workspace);
  const lines = [
    `Workspace: ${workspace}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    `Platform: ${process.platform}`,
    branch ? `Git branch: ${branch}` : "Git: not a repository",
  ];
  return { source: "workspace facts", text: lines.join("\n") };
}

export async function loadProjectContext(workspace: string): Promise<ContextItem[]> {
  const items: ContextItem[] = [];
  for (const name of INSTRUCTION_FILES) {
    const item = await readInstruction(workspace, name);
    if (item) items.push(item);
  }
  items.push(await workspaceFacts(workspace));
  return items;
}

export const SYSTEM_PROMPT = `You are albedo, a coding agent working in a terminal on the user's project.
Use the tools to look before you change anything: read files, list folders, search with grep and glob.
Make changes with edit (exact string replacement) or write, and check them by running commands with bash.
Paths are relative to the workspace root. Keep answers short and concrete; show what you changed and why.
Earlier turns appear as prose: "Tool use: NAME(INPUT)" and "Result (NAME): OUTPUT" record tool calls that already ran.
Never ask for or print secrets such as API keys.`;
