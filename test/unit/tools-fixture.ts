// Shared setup for the tool tests: a real temporary workspace and a context whose
// permission prompt records what it was asked and answers from a script.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { PermissionAnswer, PermissionPolicy, PermissionRequest, ToolContext } from "../../src/tools/types.js";

const made: string[] = [];

/** A new empty folder, real path (tmp may itself be a symlink on some systems). */
export async function tempFolder(prefix = "albedo-tools-"): Promise<string> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export async function removeTempFolders(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
}

export interface TestContext {
  ctx: ToolContext;
  asked: PermissionRequest[];
  controller: AbortController;
}

export function makeContext(
  workspace: string,
  policy: PermissionPolicy = "auto",
  answers: PermissionAnswer[] = [],
  onAsk?: (req: PermissionRequest) => void | Promise<void>,
): TestContext {
  const asked: PermissionRequest[] = [];
  const controller = new AbortController();
  const ctx: ToolContext = {
    workspace,
    policy,
    signal: controller.signal,
    async askPermission(req) {
      asked.push(req);
      await onAsk?.(req);
      // an unscripted question is a test bug: answer "deny", as headless mode does
      return answers.shift() ?? "deny";
    },
  };
  return { ctx, asked, controller };
}
