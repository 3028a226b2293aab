// A prompt too large for the model's context window is not sent (src/compaction/window.ts).
// What works instead is a file the model reads in parts: its text is saved in the workspace,
// where the read tool can reach it (the state folder is outside the workspace, which the
// tools may not leave), under .albedo/pastes/ with a .gitignore that keeps it out of the
// user's commits, and the sentence that refuses the prompt names the file.
import fs from "node:fs/promises";
import path from "node:path";
import { messageOf } from "../../record/errors.js";

/** Where refused prompts are kept, relative to the workspace. */
export const PASTES_DIR = ".albedo/pastes";

function stamp(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** A file of the folder that already holds exactly this text (Enter pressed again on the same
 * paste), so that it is not saved twice. */
async function sameText(dir: string, text: string): Promise<string | undefined> {
  const bytes = Buffer.byteLength(text, "utf8");
  for (const name of await fs.readdir(dir)) {
    if (!/^prompt-.*\.txt$/.test(name)) continue;
    const file = path.join(dir, name);
    try {
      if ((await fs.stat(file)).size === bytes && (await fs.readFile(file, "utf8")) === text) return name;
    } catch {
      // removed meanwhile
    }
  }
  return undefined;
}

/** Saves the text as a new file under PASTES_DIR (or finds it there already); returns its path
 * relative to the workspace. */
export async function savePrompt(workspace: string, text: string, now = new Date()): Promise<string> {
  const dir = path.join(workspace, PASTES_DIR);
  await fs.mkdir(dir, { recursive: true });
  // a folder of copies of what was pasted is nobody's source
  await fs.writeFile(path.join(dir, ".gitignore"), "*\n", { flag: "wx" }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "EEXIST") throw e;
  });
  const have = await sameText(dir, text);
  if (have) return `${PASTES_DIR}/${have}`;
  for (let n = 1; ; n++) {
    const name = `prompt-${stamp(now)}${n > 1 ? `-${n}` : ""}.txt`;
    try {
      await fs.writeFile(path.join(dir, name), text, { flag: "wx", mode: 0o600 });
      return `${PASTES_DIR}/${name}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || n >= 100) throw e;
    }
  }
}

/**
 * The whole sentence for a prompt refused at Enter: why (`said`), then what works. `text` is
 * the prompt's text, already through the redactor: a key pasted with it is not written.
 */
export async function refusedPrompt(said: string, text: string, o: { workspace: string; screen: boolean }): Promise<string> {
  const back = o.screen ? " (it is back in the input box)" : "";
  if (!text.trim()) return `${said} Send it with fewer images${back}.`;
  try {
    const file = await savePrompt(o.workspace, text);
    return `${said} Its text is saved as ${file} in the workspace: send a short prompt that asks the model to read that file in parts (for example "Read ${file} in parts and …"), or trim the prompt${back}.`;
  } catch (e) {
    return `${said} Trim it${back}, or save it as a file in the workspace and ask the model to read that file in parts (saving it under ${PASTES_DIR} failed: ${messageOf(e)}).`;
  }
}
