// The built CLI is a bundle (scripts/bundle.mjs, issue 19): dist/cli.js imports
// dist/bundle/cli.js. These check what the bundle must keep from the unbundled build: the
// version read from package.json, the lazy loads still lazy (nothing the first frame does
// not need is compiled before it, the MCP SDK only when a server starts), a named keymap
// found, and maps back to the sources. Headless turns through it are the other CLI tests.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BUNDLE = path.join(ROOT, "dist", "bundle");

/** the relative ES imports a bundle file makes at load (static), and those it makes on demand */
function importsOf(file: string): { staticDeps: string[]; dynamicDeps: string[]; bare: string[] } {
  const text = fs.readFileSync(path.join(BUNDLE, file), "utf8");
  const staticDeps = [...text.matchAll(/^import\s*(?:[^;"]*?from\s*)?"\.\/([^"]+)"/gm)].map((m) => m[1]!);
  const dynamicDeps = [...text.matchAll(/\bimport\("\.\/([^"]+)"\)/g)].map((m) => m[1]!);
  const bare = [...text.matchAll(/^import\s*(?:[^;"]*?from\s*)?"([^./][^"]*)"/gm)].map((m) => m[1]!);
  return { staticDeps, dynamicDeps, bare };
}

/** every bundle file loaded with `file`, and every package those files import statically */
function staticClosure(file: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (f: string): void => {
    if (files.has(f)) return;
    files.add(f);
    const { staticDeps, bare } = importsOf(f);
    for (const p of bare) packages.add(p);
    for (const d of staticDeps) visit(d);
  };
  visit(file);
  return { files, packages };
}

const text = (files: Set<string>): string => [...files].map((f) => fs.readFileSync(path.join(BUNDLE, f), "utf8")).join("\n");

describe("the bundled CLI", () => {
  it("dist/cli.js is the bin and imports the bundle", () => {
    const bin = fs.readFileSync(CLI, "utf8");
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(bin).toContain('import "./bundle/cli.js"');
    expect(fs.statSync(CLI).mode & 0o111).not.toBe(0);
  });

  it("reads its version from the package's package.json, two folders up", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const out = execFileSync(process.execPath, [CLI, "--version"], { encoding: "utf8" });
    expect(out.trim()).toBe(pkg.version);
  });

  it("loads before the first frame only what the first frame needs", () => {
    // the entry, then the screen's module (both imported before anything is drawn)
    const entry = importsOf("cli.js");
    const appChunk = entry.dynamicDeps.find((d) => /^app-[A-Z0-9]+\.js$/.test(d));
    expect(appChunk, `no app chunk among ${entry.dynamicDeps.join(", ")}`).toBeDefined();
    const first = staticClosure("cli.js");
    for (const f of staticClosure(appChunk!).files) first.files.add(f);
    const code = text(first.files);
    // zod, marked, the store, the controller and the providers are compiled behind the frame
    expect(code).not.toContain("node_modules/zod/");
    expect(code).not.toContain("node_modules/marked/");
    expect(code).not.toMatch(/^\/\/ src\/(store|controller|provider|extensions|turn|replay|compaction)\//m);
    expect(code).not.toContain("// src/tools/run.ts");
    for (const p of first.packages) expect(p).not.toMatch(/^(sqlite3|undici|@modelcontextprotocol\/sdk|cli-highlight)/);
  });

  it("imports the MCP SDK only from a chunk loaded on demand", () => {
    const files = fs.readdirSync(BUNDLE).filter((f) => f.endsWith(".js"));
    const withSdk = files.filter((f) => importsOf(f).bare.some((p) => p.startsWith("@modelcontextprotocol/sdk")));
    expect(withSdk.length).toBeGreaterThan(0);
    for (const f of files) {
      const { staticDeps } = importsOf(f);
      for (const s of withSdk) expect(staticDeps, `${f} loads ${s} statically`).not.toContain(s);
    }
    // and not from the entry's static closure either
    for (const s of withSdk) expect(staticClosure("cli.js").files.has(s)).toBe(false);
  });

  it("finds the named keymaps from inside the bundle", async () => {
    const files = fs.readdirSync(BUNDLE).filter((f) => /^keymap-[A-Z0-9]+\.js$/.test(f));
    expect(files).toHaveLength(1);
    const mod = (await import(path.join(BUNDLE, files[0]!))) as { loadKeymap(name: string | undefined, keys: unknown): { warnings: string[] } };
    const { warnings } = mod.loadKeymap("vim", undefined);
    expect(warnings).toEqual([]);
  });

  it("carries zod's English messages only, and they still read as before", async () => {
    const code = fs.readdirSync(BUNDLE).filter((f) => f.endsWith(".js")).map((f) => fs.readFileSync(path.join(BUNDLE, f), "utf8")).join("\n");
    expect(code).toContain("// node_modules/zod/v4/locales/en.js");
    expect(code).not.toMatch(/\/\/ node_modules\/zod\/v4\/locales\/(?!en\.js)/);
    // a config value of the wrong kind is reported in zod's English words
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-bundle-"));
    try {
      const file = path.join(dir, "config.json");
      fs.writeFileSync(file, JSON.stringify({ theme: 5 }));
      const r = spawnSync(process.execPath, [CLI, "--config", file, "-p", "hi"], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir } });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('field "theme": Invalid option: expected one of "dark"|"light"|"auto"');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has source maps that point at src/", () => {
    const map = JSON.parse(fs.readFileSync(path.join(BUNDLE, "cli.js.map"), "utf8")) as { sources: string[] };
    expect(map.sources.some((s) => s.endsWith("src/cli.ts"))).toBe(true);
  });
});
