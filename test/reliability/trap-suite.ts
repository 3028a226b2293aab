// What the traps files share: homes and fakes made for a test and cleaned up after the file
// (every file of every home scanned for the key first), a trap's row in the traps table, and
// the check every trap ends with: the next turn goes through, accepted by the strict fake,
// and keeps every stored message.
import { afterAll, expect } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";
import { messagesLost, readRecord, removeHomes, secretHits, Tally, writeTraps, type TrapFigure } from "./lib.js";

export interface TrapSuite {
  home(): Promise<Home>;
  fake(opts?: Parameters<typeof startFakeProvider>[0]): Promise<FakeProvider>;
  nextTurnWorks(f: FakeProvider, h: Home, args: string[]): Promise<{ works: boolean; lost: number }>;
  trap(name: string, row: string, fn: (fig: TrapFigure) => Promise<{ works: boolean; lost: number }>, timeout?: number): void;
}

/** `table`: the traps table's part this file writes */
export function trapSuite(key: string, table: string): TrapSuite {
  const homes: Home[] = [];
  const fakes: FakeProvider[] = [];
  const tally = new Tally();
  const traps: TrapFigure[] = [];

  afterAll(async () => {
    const hits = await secretHits(
      homes.map((h) => h.root),
      [key],
    );
    await Promise.all(fakes.map((f) => f.close()));
    await writeTraps(table, traps);
    await removeHomes(homes);
    expect(hits).toEqual([]);
  });

  return {
    async home() {
      const h = await makeHome({ ANTHROPIC_API_KEY: key, OPENAI_API_KEY: key });
      homes.push(h);
      return h;
    },
    async fake(opts = {}) {
      const f = await startFakeProvider({ key, ...opts });
      fakes.push(f);
      return f;
    },
    async nextTurnWorks(f, h, args) {
      const before = await readRecord(h.db);
      const rejected = f.rejections().length;
      f.script({ text: "The next turn works." });
      const r = await runCli(["-p", "and now?", "--continue", ...args], h);
      const after = await readRecord(h.db);
      const lost = messagesLost(before.messages, after.messages);
      expect(r.stderr).not.toContain("albedo-tui:");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("The next turn works.\n");
      expect(f.rejections().length).toBe(rejected);
      expect(after.bad).toEqual([]);
      expect(lost).toBe(0);
      expect(after.messages.slice(-2).map((m) => [m.role, m.status])).toEqual([
        ["user", "complete"],
        ["assistant", "complete"],
      ]);
      return { works: true, lost };
    },
    trap(name, row, fn, timeout = 120_000) {
      tally.it(
        name,
        async () => {
          const fig: TrapFigure = { trap: row, held: false, nextTurnWorks: false, messagesLost: 0 };
          traps.push(fig);
          const { works, lost } = await fn(fig);
          fig.nextTurnWorks = works;
          fig.messagesLost = lost;
          fig.held = works && lost === 0;
        },
        timeout,
      );
    },
  };
}
