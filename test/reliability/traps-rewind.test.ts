// A trap of the "traps" table (summary-setup.ts): kill -9 during a rewind. A real `albedo-tui
// rewind` restoring 3,000 files is killed half-way through; then every file is whole (as it
// was, or as restored, never a part), the next start cleans up what the kill left and says how
// to finish, the next turn works, no record is lost, and running the rewind again finishes it.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/session/store/store.js";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, startCli, waitUntil, type Home } from "../helpers/cli.js";
import { anthropicArgs, messagesLost, removeHomes, secretHits, writeTraps, type TrapFigure } from "./lib.js";

const KEY = "sk-ant-reliability-TRAPS-77aa01";
const FILES = 3000;
const TRAP = "kill -9 during a rewind";
const fakes: FakeProvider[] = [];
const homes: Home[] = [];
/** the trap's row; one that did not get to its end is written as not held */
let row: TrapFigure = { trap: TRAP, held: false, nextTurnWorks: false, messagesLost: 0, detail: "did not run to its end" };

afterAll(async () => {
  await writeTraps("rewind", [row]);
  await Promise.all(fakes.map((f) => f.close()));
  await removeHomes(homes);
});

const name = (i: number): string => `f${String(i).padStart(5, "0")}.txt`;
const before = (i: number): string => `${"v0 ".repeat(2000)}${i}\n`;
const after = (i: number): string => `${before(i)}v1\n`;

async function contents(h: Home): Promise<string[]> {
  return Promise.all(Array.from({ length: FILES }, (_, i) => fs.readFile(path.join(h.workspace, "d", name(i)), "utf8")));
}

describe("traps: kill -9 during a rewind", () => {
  it(
    TRAP,
    async () => {
      const fake = await startFakeProvider({ key: KEY });
      fakes.push(fake);
      const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
      homes.push(h);
      await fs.mkdir(path.join(h.workspace, "d"));
      for (let i = 0; i < FILES; i++) await fs.writeFile(path.join(h.workspace, "d", name(i)), before(i));
      fake.script({ toolCalls: [{ name: "bash", input: { command: 'for f in d/*; do echo v1 >> "$f"; done' } }] }, { text: "Changed them all." });
      const turn = await runCli(["-p", "change every file", "--permission", "auto", ...anthropicArgs(fake)], h);
      expect(turn.code, turn.stderr).toBe(0);
      const store = await openStore(h.db);
      const [session] = await store.listSessions();
      const messagesBefore = (await store.loadHistory(session!.id)).messages;
      await store.close();
      expect((await contents(h)).every((c, i) => c === after(i))).toBe(true);

      // the rewind, killed once it has put some files back and not all
      const journals = path.join(h.env.XDG_STATE_HOME as string, "albedo", "checkpoints", "rewinds");
      const live = startCli(["rewind", session!.id, "--to", "1", "--code"], h);
      const restoredNow = async (): Promise<number> => (await contents(h)).filter((c, i) => c === before(i)).length;
      await waitUntil(async () => (await fs.readdir(journals).catch(() => [])).length > 0 && (await restoredNow()) >= 20, 60_000, "the rewind under way");
      live.child.kill("SIGKILL");
      const killed = await live.done;
      expect(killed.signal).toBe("SIGKILL");
      const atKill = await contents(h);
      const restored = atKill.filter((c, i) => c === before(i)).length;
      // half-way: some put back, some not, none in between
      expect(restored).toBeGreaterThan(0);
      expect(restored).toBeLessThan(FILES);
      const halfWritten = atKill.filter((c, i) => c !== before(i) && c !== after(i)).length;
      expect(halfWritten).toBe(0);
      expect((await fs.readdir(journals)).length).toBe(1);
      // the files being written at the kill: their temporary copies are still there
      const tempsAtKill = (await fs.readdir(path.join(h.workspace, "d"))).filter((f) => f.includes(".albedo-")).length;

      // the next start: cleans up, says how to finish, and the turn works
      fake.script({ text: "The next turn works." });
      const next = await runCli(["-p", "and now?", "--continue", ...anthropicArgs(fake)], h);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).toBe("The next turn works.\n");
      expect(next.stderr).toContain(`a rewind of session ${session!.id} to prompt 1 was interrupted`);
      expect(next.stderr).toContain(`run it again to finish (albedo-tui rewind ${session!.id} --to 1 --code)`);
      expect(fake.rejections()).toEqual([]);
      expect(await fs.readdir(journals)).toEqual([]);
      const leftovers = (await fs.readdir(path.join(h.workspace, "d"))).filter((f) => f.includes(".albedo-"));
      expect(leftovers).toEqual([]);

      // no record lost: every message before the kill is there as it was, and the next turn's
      const reopened = await openStore(h.db);
      const loaded = await reopened.loadHistory(session!.id);
      await reopened.close();
      expect(loaded.bad).toEqual([]);
      const lost = messagesLost(messagesBefore, loaded.messages);
      expect(lost).toBe(0);
      expect(loaded.messages.length).toBe(messagesBefore.length + 2);

      // run again, it finishes: every file as it was before prompt 1
      const again = await runCli(["rewind", session!.id, "--to", "1", "--code"], h);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(new RegExp(`Restored ${FILES - restored} paths:`));
      expect((await contents(h)).every((c, i) => c === before(i))).toBe(true);
      expect(await secretHits([h.root], [KEY])).toEqual([]);
      row = { trap: TRAP, held: true, nextTurnWorks: true, messagesLost: lost, detail: `killed with ${restored} of ${FILES} files put back, none half-written, ${tempsAtKill} temporary copies cleaned up at the next start` };
    },
    240_000,
  );
});
