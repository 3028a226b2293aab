// A hostile repository, checkpointed and rewound through the built CLI: names with newlines,
// escape sequences and bidi controls, a name that is not UTF-8, a folder swapped for a link
// that leads outside, a link whose target outside is changed through it, a FIFO, a 1 GB sparse
// file, a .gitignore pattern that makes a regular expression backtrack for minutes and a
// .gitignore that is a link to /dev/zero. The walk ends, nothing outside the workspace is
// written, what can be put back is, and the rest is named, never skipped in silence.
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { allFiles, makeHome, runCli, type Home } from "../helpers/cli.js";
import { anthropicArgs, removeHomes, Tally, writeFigures } from "./lib.js";

const KEY = "sk-ant-reliability-HOSTILE-5e5e5e";
const tally = new Tally();
const fakes: FakeProvider[] = [];
const homes: Home[] = [];
let named = 0;
let restoredPaths = 0;

afterAll(async () => {
  await writeFigures("rewind-hostile", { ...tally.figures(), named, restored: restoredPaths });
  await Promise.all(fakes.map((f) => f.close()));
  await removeHomes(homes);
});

const NEWLINE = "new\nline.txt";
const ESC = "esc\x1b[31mred.txt";
const BIDI = "bidi\u202eevil.txt";
const LONG = "a".repeat(200);

describe("a hostile repository", () => {
  tally.it(
    "names, links out, a FIFO, a 1 GB file, hostile .gitignore: rewound or named, nothing written outside",
    async () => {
      const fake = await startFakeProvider({ key: KEY });
      fakes.push(fake);
      const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
      homes.push(h);
      const w = (p: string): string => path.join(h.workspace, p);
      const outside = path.join(h.root, "outside");
      await fs.mkdir(outside);
      await fs.writeFile(path.join(outside, "target.txt"), "o0\n");
      await fs.writeFile(w(NEWLINE), "n0\n");
      await fs.writeFile(w(ESC), "e0\n");
      await fs.writeFile(w(BIDI), "b0\n");
      await fs.writeFile(Buffer.from([...Buffer.from(w("bad")), 0xff, 0x2e, 0x74]), "x0\n");
      await fs.mkdir(w("sub"));
      await fs.writeFile(w("sub/inner.txt"), "s0\n");
      await fs.symlink(path.join(outside, "target.txt"), w("link-out"));
      execFileSync("mkfifo", [w("pipe")]);
      const big = await fs.open(w("huge.bin"), "w");
      await big.truncate(1024 * 1024 * 1024);
      await big.close();
      await fs.writeFile(w(".gitignore"), "*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n");
      await fs.writeFile(w(LONG), "a0\n");
      await fs.mkdir(w("zdir"));
      await fs.symlink("/dev/zero", w("zdir/.gitignore"));
      await fs.writeFile(w("zdir/z.txt"), "z0\n");

      fake.script(
        {
          toolCalls: [
            {
              name: "bash",
              input: {
                command: [
                  "echo n1 >> $'new\\nline.txt'",
                  "rm $'esc\\e[31mred.txt'",
                  "echo b1 >> $'bidi\\u202eevil.txt'",
                  "echo o1 >> link-out",
                  `rm -rf sub; ln -s ${JSON.stringify(outside)} sub`,
                  "rm pipe",
                  "echo h >> huge.bin",
                  `echo a1 >> ${LONG}`,
                  "echo z1 >> zdir/z.txt",
                ].join("; "),
              },
            },
          ],
        },
        { text: "Done the damage." },
      );
      // sandbox off: the checkpoint must cope with a command that can write through a link
      // (the sandbox would stop that write, and the sandbox tests hold it to that)
      const turn = await runCli(["-p", "do hostile things", "--permission", "auto", "--sandbox", "off", ...anthropicArgs(fake)], h);
      expect(turn.code, turn.stderr).toBe(0);
      expect(turn.stderr).toMatch(/has a name that is not valid UTF-8; it is not checkpointed/);
      expect(turn.stderr).toMatch(/a rewind cannot put back: /);
      // the link was followed by bash, never by the checkpoint: outside holds what bash did only
      expect(await fs.readdir(outside)).toEqual(["target.txt"]);

      const id = (JSON.parse((await runCli(["sessions", "--json"], h)).stdout) as { id: string }[])[0]!.id;
      const r = await runCli(["rewind", id, "--to", "1", "--code", "--json"], h);
      expect(r.code, r.stderr).toBe(0);
      // nothing raw on the way out: control characters come escaped
      expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
      const body = JSON.parse(r.stdout) as { restored: string[]; failed: string[]; unrestorable: string[] };
      expect(body.failed).toEqual([]);
      restoredPaths = body.restored.length;

      // put back, the names as they were
      expect(await fs.readFile(w(NEWLINE), "utf8")).toBe("n0\n");
      expect(await fs.readFile(w(ESC), "utf8")).toBe("e0\n");
      expect(await fs.readFile(w(BIDI), "utf8")).toBe("b0\n");
      expect(await fs.readFile(w(LONG), "utf8")).toBe("a0\n");
      expect(await fs.readFile(w("zdir/z.txt"), "utf8")).toBe("z0\n");
      // the folder is a folder again, with its file, and nothing was written through the link
      expect((await fs.lstat(w("sub"))).isDirectory()).toBe(true);
      expect(await fs.readFile(w("sub/inner.txt"), "utf8")).toBe("s0\n");
      expect(await fs.readdir(outside)).toEqual(["target.txt"]);
      expect(body.restored).toContain('restored "new\\nline.txt"');
      expect(body.restored).toContain('recreated "esc\\u001b[31mred.txt"');

      // named: the FIFO, the 1 GB file, the file outside changed through the link
      named = body.unrestorable.length;
      expect(body.unrestorable).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^pipe: a FIFO/),
          expect.stringMatching(/^huge\.bin: a file of 1\.0 GB, over the 10\.0 MB per-file cap/),
          expect.stringContaining(`${path.join(outside, "target.txt")}: the file a link in the workspace (link-out) leads to`),
        ]),
      );
      expect(await fs.readFile(path.join(outside, "target.txt"), "utf8")).toBe("o0\no1\n");
      // the 1 GB file was never copied
      const state = path.join(h.env.XDG_STATE_HOME as string, "albedo");
      let stored = 0;
      for (const f of await allFiles(state)) stored += (await fs.stat(f)).size;
      expect(stored).toBeLessThan(50 * 1024 * 1024);
    },
    180_000,
  );
});
