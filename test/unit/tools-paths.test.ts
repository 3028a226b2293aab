import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { isWithin, resolvePath } from "../../src/tools/paths.js";
import { removeTempFolders, tempFolder } from "./tools-fixture.js";

let ws: string;
let outside: string;
beforeEach(async () => {
  ws = await tempFolder("albedo-ws-");
  outside = await tempFolder("albedo-outside-");
  await fs.mkdir(path.join(ws, "src"));
});
afterAll(removeTempFolders);

describe("resolvePath", () => {
  it("resolves relative paths against the workspace", async () => {
    const r = await resolvePath(ws, "src/a.ts");
    expect(r).toEqual({ given: "src/a.ts", abs: path.join(ws, "src/a.ts"), real: path.join(ws, "src/a.ts"), outsideWorkspace: false });
    expect((await resolvePath(ws, ".")).outsideWorkspace).toBe(false);
  });

  it("marks .. and absolute paths that leave the workspace", async () => {
    expect((await resolvePath(ws, "../x")).outsideWorkspace).toBe(true);
    expect((await resolvePath(ws, "/etc/hosts")).outsideWorkspace).toBe(true);
    expect((await resolvePath(ws, "src/../../x")).outsideWorkspace).toBe(true);
    expect((await resolvePath(ws, path.join(ws, "src"))).outsideWorkspace).toBe(false);
  });

  it("treats a sibling whose name starts with the workspace's as outside", async () => {
    expect((await resolvePath(ws, `${ws}-evil/file`)).outsideWorkspace).toBe(true);
    expect(isWithin(ws, path.join(ws, "..hidden"))).toBe(true);
  });

  it("follows a symlinked folder out of the workspace", async () => {
    await fs.symlink(outside, path.join(ws, "link"));
    const r = await resolvePath(ws, "link/new/deeper.txt");
    expect(r.abs).toBe(path.join(ws, "link/new/deeper.txt"));
    expect(r.real).toBe(path.join(outside, "new/deeper.txt"));
    expect(r.outsideWorkspace).toBe(true);
  });

  it("follows a dangling symlink to where a write would land", async () => {
    await fs.symlink(path.join(outside, "later.txt"), path.join(ws, "dangling"));
    const r = await resolvePath(ws, "dangling");
    expect(r.real).toBe(path.join(outside, "later.txt"));
    expect(r.outsideWorkspace).toBe(true);
  });

  it("keeps a symlink that stays inside the workspace inside", async () => {
    await fs.symlink("src", path.join(ws, "alias"));
    const r = await resolvePath(ws, "alias/x.ts");
    expect(r.real).toBe(path.join(ws, "src/x.ts"));
    expect(r.outsideWorkspace).toBe(false);
  });

  it("works when the workspace itself is reached through a symlink", async () => {
    const viaLink = path.join(outside, "ws-link");
    await fs.symlink(ws, viaLink);
    const r = await resolvePath(viaLink, "src");
    expect(r.real).toBe(path.join(ws, "src"));
    expect(r.outsideWorkspace).toBe(false);
  });

  it("expands ~ to the home folder", async () => {
    expect((await resolvePath(ws, "~/x")).abs).toBe(path.join(os.homedir(), "x"));
  });
});
