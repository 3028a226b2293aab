// The file index behind `@` completion over real files: hostile names stay out, links (a loop
// among them) are never followed, a 100,000-file tree is walked while the event loop keeps
// turning (the screen is never frozen by it), and the matcher's narrowing finds exactly what a
// plain scan finds, key by key and through Backspace.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listFiles, MentionIndex } from "../../src/ui/mentions.js";
import { PathMatcher } from "../../src/ui/mention-match.js";
import { MentionCompleter } from "../../src/ui/mention-complete.js";
import { tempDir } from "../helpers/tmp.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fsp.rm(d, { recursive: true, force: true });
});

async function workspace(): Promise<string> {
  const dir = await tempDir("albedo-mentions-");
  dirs.push(dir);
  const ws = path.join(dir, "ws");
  await fsp.mkdir(ws);
  return ws;
}

function write(ws: string, rel: string, content = "x\n"): void {
  const p = path.join(ws, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

describe("the @ index on a hostile workspace", () => {
  it("leaves out names with newlines, control characters and spaces, .git and ignored files", async () => {
    const ws = await workspace();
    write(ws, "src/ok.ts");
    write(ws, "line\nbreak.ts");
    write(ws, "esc\u001b]0;PWNED\u0007.ts");
    write(ws, "del\u007f.ts");
    write(ws, "csi\u009b31m.ts");
    write(ws, "with space.ts");
    write(ws, "dir\nname/inside.ts");
    write(ws, ".git/config");
    write(ws, "build/out.js");
    write(ws, "keep.log");
    write(ws, ".gitignore", "build/\n*.log\n");
    const files = await listFiles(ws);
    expect(files.sort()).toEqual([".gitignore", "src/ok.ts"]);
  });

  it("follows no link: a loop, a link to itself, a link up and a link out end the walk with no link listed", async () => {
    const ws = await workspace();
    const outside = path.join(path.dirname(ws), "outside");
    write(outside, "secret.txt");
    write(ws, "a/real.ts");
    fs.symlinkSync(".", path.join(ws, "a", "loop"));
    fs.symlinkSync("..", path.join(ws, "a", "up"));
    fs.symlinkSync("self", path.join(ws, "self"));
    fs.symlinkSync(path.join(ws, "b"), path.join(ws, "c"));
    fs.symlinkSync(path.join(ws, "c"), path.join(ws, "b"));
    fs.symlinkSync(outside, path.join(ws, "out"));
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "secret-link.txt"));
    const files = await listFiles(ws);
    expect(files).toEqual(["a/real.ts"]);
    const index = new MentionIndex(ws);
    await index.refresh();
    expect(index.find("secret")).toEqual([]);
    expect(index.find("real")).toEqual(["a/real.ts"]);
  });

  it("walks 100,000 files while the event loop keeps turning, and stops at its cap", async () => {
    const ws = await workspace();
    for (let d = 0; d < 1_000; d++) {
      const sub = path.join(ws, `pkg${d}`, "src");
      fs.mkdirSync(sub, { recursive: true });
      for (let i = 0; i < 100; i++) fs.closeSync(fs.openSync(path.join(sub, `m${i}.ts`), "w"));
    }
    let turns = 0;
    let walking = true;
    const tick = (): void => {
      turns++;
      if (walking) setImmediate(tick);
    };
    setImmediate(tick);
    let readied = 0;
    const index = new MentionIndex(ws, () => readied++);
    const built = index.refresh();
    // a key typed meanwhile is answered from what is there (nothing yet), at once
    expect(index.ready()).toBe(false);
    expect(index.find("pkg1")).toEqual([]);
    await built;
    walking = false;
    expect(index.size).toBe(100_000);
    expect(readied).toBe(1);
    // the walk gave the event loop back many times: keys and frames run between its slices
    expect(turns).toBeGreaterThan(5);
    expect(index.find("pkg42src/m7", 3)).toContain("pkg42/src/m7.ts");
    // a home folder opened as a workspace: the list stops at its cap
    expect(await listFiles(ws, 1_234)).toHaveLength(1_234);
  }, 120_000);
});

describe("the matcher", () => {
  function paths(): string[] {
    const out: string[] = [];
    for (let d = 0; d < 60; d++) for (let i = 0; i < 60; i++) out.push(`lib/part${d}/sub${d % 7}/file-${i}-${"x".repeat(i % 5)}.ts`);
    out.push("README.md", "src/main.ts", "Makefile");
    return out;
  }
  const subsequence = (q: string, s: string): boolean => {
    let at = 0;
    for (const ch of q.toLowerCase()) {
      at = s.toLowerCase().indexOf(ch, at) + 1;
      if (at === 0) return false;
    }
    return true;
  };

  it("offers the shortest paths for a bare @, and what fuzzysort ranks best for a query", () => {
    const m = new PathMatcher(paths());
    expect(m.find("", 3)).toEqual(["Makefile", "README.md", "src/main.ts"]);
    expect(m.find("readme", 1)).toEqual(["README.md"]);
    expect(m.find("MAIN", 1)).toEqual(["src/main.ts"]);
    expect(m.find("zzz")).toEqual([]);
  });

  it("narrows key by key, and back through Backspace, to what a plain scan finds", () => {
    const all = paths();
    const m = new PathMatcher(all);
    const typed = ["part4sub", "part4su\b\b\bfile-3", "lib/part12", "f1x\b\b2xx", "Part59/SUB3/file-59"];
    for (const keys of typed) {
      let q = "";
      for (const ch of keys) {
        q = ch === "\b" ? q.slice(0, -1) : q + ch;
        const want = all.filter((p) => subsequence(q, p));
        const got = m.find(q, 5);
        // every path offered matches, and as many are offered as can be
        for (const p of got) expect(subsequence(q, p), `${p} for ${q}`).toBe(true);
        expect(got.length, q).toBe(Math.min(5, want.length));
        if (want.length <= 300) expect(new Set(m.find(q, 10_000)), q).toEqual(new Set(want));
      }
    }
  });
});

describe("the screen's side", () => {
  it("says it is listing until the walk is in, then completes; a prompt sent walks again and new files show", async () => {
    const ws = await workspace();
    write(ws, "src/widget-factory.ts");
    let redraws = 0;
    const c = new MentionCompleter(() => ws, () => redraws++);
    expect(c.hint("see @wid", 8)).toEqual({ loading: true, paths: [] });
    await c.prewarm();
    expect(c.hint("see @wid", 8)).toEqual({ loading: false, paths: ["src/widget-factory.ts"] });
    expect(c.hint("see wid", 7)).toBeUndefined();
    expect(c.complete("see @wdgfac x", 11)).toEqual({ text: "see @src/widget-factory.ts x", cursor: 26 });
    write(ws, "src/widget-new.ts");
    const before = redraws;
    c.sent();
    await expect.poll(() => redraws, { timeout: 20_000 }).toBeGreaterThan(before);
    expect(c.hint("@widnew", 7)?.paths).toEqual(["src/widget-new.ts"]);
  });
});
