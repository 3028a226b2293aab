// Where a path really points. The workspace check must look through symlinks: a link
// inside the project that points at ~/.ssh is outside the project, whatever its name.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ToolContext } from "./types.js";

export interface ResolvedPath {
  /** the path as the model gave it, for messages */
  given: string;
  /** absolute, lexically resolved against the workspace (symlinks not followed) */
  abs: string;
  /** absolute with every symlink followed; for a path that does not exist yet, the
   * real path of its nearest existing parent plus the rest. Tools operate on this. */
  real: string;
  /** true when `real` is not the workspace or below it */
  outsideWorkspace: boolean;
}

const MAX_LINK_HOPS = 40; // the kernel's own limit for symlink chains

export async function resolvePath(workspace: string, given: string): Promise<ResolvedPath> {
  const abs = path.resolve(workspace, expandHome(given));
  const [real, root] = await Promise.all([realpathLoose(abs, 0), realpathLoose(path.resolve(workspace), 0)]);
  return { given, abs, real, outsideWorkspace: !isWithin(root, real) };
}

/** The workspace's real path: the boundary every check compares against. */
export function workspaceReal(workspace: string): Promise<string> {
  return realpathLoose(path.resolve(workspace), 0);
}

/**
 * Why a tool must not touch `real` now, or undefined when it may. The permission check ran
 * on its own resolution of the path a moment earlier; a link swapped since then must not
 * carry the call somewhere that check never saw. Allowed: the workspace, or at or below a
 * path outside it that this call's check cleared (everything, in auto mode).
 */
export async function boundaryProblem(
  ctx: Pick<ToolContext, "workspace" | "outsideAllowed">,
  real: string,
  shown: string,
): Promise<string | undefined> {
  if (ctx.outsideAllowed === "any") return undefined;
  if (isWithin(await workspaceReal(ctx.workspace), real)) return undefined;
  if ((ctx.outsideAllowed ?? []).some((a) => isWithin(a, real))) return undefined;
  return `${shown} now leads outside the workspace (to ${real}), which the permission check did not allow; it changed after the check, so it was not touched`;
}

/** True when `p` is `root` or below it; both must already be real, absolute paths. */
export function isWithin(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  // "..foo" is a legal name inside root; only ".." itself or "../…" leaves it
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** A path for display: relative to the workspace when inside it, absolute otherwise. */
export function displayPath(workspaceReal: string, real: string): string {
  if (!isWithin(workspaceReal, real)) return real;
  return path.relative(workspaceReal, real) || ".";
}

function expandHome(p: string): string {
  if (p === "~") return os.homedir();
  if (p.startsWith("~/")) return path.join(os.homedir(), p.slice(2));
  return p;
}

/**
 * realpath that also works for paths that do not exist yet. A missing last component
 * that is a dangling symlink is followed too: writing to it would create the file at
 * the link's target, so the target is what must be checked.
 */
async function realpathLoose(p: string, hops: number): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      // ELOOP, EACCES…: nothing better is knowable; the lexical path still gets checked
      return p;
    }
  }
  const st = await fs.lstat(p).catch(() => null);
  if (st?.isSymbolicLink() && hops < MAX_LINK_HOPS) {
    const target = await fs.readlink(p);
    return realpathLoose(path.resolve(path.dirname(p), target), hops + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(await realpathLoose(parent, hops), path.basename(p));
}
