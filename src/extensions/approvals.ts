// Approvals of a workspace's .mcp.json: a project file can run commands, so its servers start
// only once a person has said yes in the screen. The answer is remembered per workspace and
// per sha256 of the file's bytes (an edited file asks again), in the XDG state folder, 0600.
// Only paths, hashes and times are written: never a command, an env value or a header.
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { jsonSyntaxProblem } from "../config/files.js";
import { ensurePrivateDir, stateDir, tightenFile } from "../config/paths.js";
import { messageOf } from "../record/errors.js";

const approvalsSchema = z.object({
  version: z.literal(1),
  approvals: z.array(z.object({ workspace: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), approvedAt: z.string() }).strict()),
});
type Approvals = z.infer<typeof approvalsSchema>;

function approvalsFile(): string {
  return path.join(stateDir(), "mcp-approvals.json");
}

/** What is on file; a damaged file is reported (its approvals then count for nothing). */
export function readApprovals(file = approvalsFile()): { approvals: Approvals["approvals"]; problem?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { approvals: [] };
    return { approvals: [], problem: `the MCP approvals file ${file} could not be read (${messageOf(e)}); project servers need approving again` };
  }
  try {
    const r = approvalsSchema.safeParse(JSON.parse(text));
    if (r.success) return { approvals: r.data.approvals };
    return { approvals: [], problem: `the MCP approvals file ${file} is not in the expected shape (${r.error.issues[0]?.message ?? "invalid"}); project servers need approving again` };
  } catch {
    return { approvals: [], problem: `the MCP approvals file ${file} is ${jsonSyntaxProblem(text)}; project servers need approving again` };
  }
}

/** Records a yes for this workspace and this content (an older one for the workspace goes). */
export function approve(workspace: string, sha256: string, file = approvalsFile()): void {
  const kept = readApprovals(file).approvals.filter((a) => a.workspace !== workspace);
  const next: Approvals = { version: 1, approvals: [...kept, { workspace, sha256, approvedAt: new Date().toISOString() }] };
  ensurePrivateDir(path.dirname(file), { tighten: false });
  // written whole then renamed: a crash never leaves half a file
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  fs.renameSync(tmp, file);
  tightenFile(file);
}
