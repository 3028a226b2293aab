// glob and grep stay inside their folder whatever the pattern says:
// every spelling of "..", absolute paths, ~, and links inside the workspace that lead out.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionPolicy } from "../../src/tools/types.js";
import { removeTempFolders } from "./tools-fixture.js";
import { call, contextFor, escapeForms, escapesIn, makeLayout, OUTSIDE_FILE, OUTSIDE_MARK, type Layout } from "./tools-boundary-fixture.js";

let l: Layout;
beforeAll(async () => {
  l = await makeLayout();
});
afterAll(removeTempFolders);

/** the refusals: a pattern read as "..", absolute, ~, or one that found only outside paths */
const REFUSAL = /climbs out of the searched folder|is an absolute path|starts with ~|reached outside the workspace not used/;

describe.each<PermissionPolicy>(["read-only", "ask"])("in %s mode", (policy) => {
  it("glob lists nothing outside for any spelling of the way out, and asks nobody", async () => {
    const problems: string[] = [];
    for (const f of escapeForms(l)) {
      const { ctx, asked } = contextFor(l.ws, policy);
      const r = await call("glob", { pattern: f.pattern }, ctx);
      for (const e of await escapesIn(r, l)) problems.push(`${f.pattern}: ${e}`);
      if (asked.length > 0) problems.push(`${f.pattern}: asked ${asked.map((a) => a.summary).join("; ")}`);
      if (f.refused && !(r.isError && REFUSAL.test(r.output))) problems.push(`${f.pattern}: not refused: ${r.output}`);
    }
    expect(problems).toEqual([]);
  });

  it("grep reads nothing outside for any spelling of the way out in its glob, and asks nobody", async () => {
    const problems: string[] = [];
    for (const f of escapeForms(l)) {
      const { ctx, asked } = contextFor(l.ws, policy);
      const r = await call("grep", { pattern: "SECRET|inside", glob: f.pattern }, ctx);
      for (const e of await escapesIn(r, l)) problems.push(`${f.pattern}: ${e}`);
      if (asked.length > 0) problems.push(`${f.pattern}: asked ${asked.map((a) => a.summary).join("; ")}`);
      if (f.refused && !(r.isError && REFUSAL.test(r.output))) problems.push(`${f.pattern}: not refused: ${r.output}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("the refusals say what is wrong", () => {
  it("names the spelling the engine reads as ..", async () => {
    const r = await call("glob", { pattern: ".\\./.\\./etc/*" }, contextFor(l.ws, "read-only").ctx);
    expect(r).toEqual({
      output: 'pattern .\\./.\\./etc/* climbs out of the searched folder with ".." (".\\." is read as ".."); patterns are relative to the searched folder; give another folder as path',
      isError: true,
    });
    const g = await call("grep", { pattern: "root", glob: ".\\./.\\./etc/passwd" }, contextFor(l.ws, "ask").ctx);
    expect(g.isError).toBe(true);
    expect(g.output).toMatch(/^glob \.\\\.\/\.\\\.\/etc\/passwd climbs out of the searched folder with "\.\."/);
  });

  it("says a pattern found only paths outside, through a linked folder", async () => {
    const r = await call("glob", { pattern: "linkdir/*" }, contextFor(l.ws, "read-only").ctx);
    expect(r).toEqual({ output: "1 path(s) the pattern reached outside the workspace not used: a search stays inside its folder", isError: true });
  });

  it("a pattern that only names a linked folder among others does not descend it", async () => {
    const r = await call("glob", { pattern: "{linkdir,sub}/*" }, contextFor(l.ws, "read-only").ctx);
    expect(r).toEqual({ output: "sub/x.txt", isError: false });
  });
});

describe("links", () => {
  it("a link that stays inside is still followed by name", async () => {
    const r = await call("glob", { pattern: "alias/*" }, contextFor(l.ws, "read-only").ctx);
    expect(r).toEqual({ output: "alias/x.txt", isError: false });
  });

  it("grep over the whole workspace never reads through a linked file or folder", async () => {
    const r = await call("grep", { pattern: "SECRET|text" }, contextFor(l.ws, "read-only").ctx);
    expect(r).toEqual({ output: "in.txt:1: inside text\nsub/x.txt:1: inside sub text", isError: false });
  });

  it("a linked folder given as path is the permission check's business: denied in read-only, asked in ask", async () => {
    const ro = await call("grep", { pattern: "SECRET", path: "linkdir" }, contextFor(l.ws, "read-only").ctx);
    expect(ro.isError).toBe(true);
    expect(ro.output).toMatch(/^denied: albedo-tui runs in read-only mode; .* is outside the workspace/);
    const { ctx, asked } = contextFor(l.ws, "ask");
    const ask = await call("glob", { pattern: "*", path: "linkdir" }, ctx);
    expect(asked.map((a) => a.outsideWorkspace)).toEqual([l.outside]);
    expect(ask.output).not.toContain(OUTSIDE_FILE);
  });

  it("in auto mode a folder outside given as path is searched (the policy allows it), but its patterns still cannot climb", async () => {
    const r = await call("grep", { pattern: "SECRET", path: "linkdir", glob: "*.txt" }, contextFor(l.ws, "auto").ctx);
    expect(r.output).toBe(`${path.join(l.outside, OUTSIDE_FILE)}:1: ${OUTSIDE_MARK}\n${path.join(l.outside, "sub/x.txt")}:1: ${OUTSIDE_MARK} in sub`);
    const up = await call("glob", { pattern: ".\\./*", path: "sub" }, contextFor(l.ws, "auto").ctx);
    expect(up.isError).toBe(true);
    expect(up.output).toMatch(/climbs out of the searched folder/);
    // the base is the boundary: from sub, a link in sub to the workspace root is outside it
    await fs.symlink("..", path.join(l.ws, "sub", "up"));
    try {
      const viaLink = await call("glob", { pattern: "up/*", path: "sub" }, contextFor(l.ws, "auto").ctx);
      expect(viaLink.output).toMatch(/path\(s\) the pattern reached outside sub not used/);
    } finally {
      await fs.unlink(path.join(l.ws, "sub", "up"));
    }
  });
});
