// The built CLI is one CommonJS bundle (scripts/bundle.mjs), run by the bin
// dist/cli.js through V8's code cache (src/launch/). These check what the bundle must keep
// from the unbundled build (the version read from package.json, the lazy loads still lazy:
// nothing the first frame does not need runs before it, the MCP SDK only when a server
// starts; a named keymap found; maps back to the sources) and what the code cache must do
// from outside: written once, used by the next start, private, and free of secrets.
// Headless turns through it are the other CLI tests.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, makeHome, TEST_CODE_CACHE, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { BUNDLE, bundleGraph, closure, moduleAt } from "../helpers/bundle-graph.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the bundled CLI", () => {
  it("dist/cli.js is the bin and runs the bundle", () => {
    const bin = fs.readFileSync(CLI, "utf8");
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(bin).toContain('"bundle", "cli.cjs"');
    // the build's mark, which keys the code cache
    expect(fs.readFileSync(BUNDLE, "utf8")).toMatch(/\n\/\/# albedo-build [0-9a-f]{32}\n$/);
    expect(fs.statSync(CLI).mode & 0o111).not.toBe(0);
  });

  it("has no import() left: a script run by vm.Script cannot import() on Node 20", () => {
    const text = bundleGraph().text;
    // code, not comments: an import( call outside a // line
    const calls = text.split("\n").filter((l) => /(^|[^\w.$])import\s*\(/.test(l.replace(/\/\/.*$/, "")));
    expect(calls).toEqual([]);
    expect(text).toContain('__toESM(require("undici")');
  });

  it("is ASCII, so the source V8 keeps for the whole run is one byte a character", () => {
    const text = fs.readFileSync(BUNDLE, "utf8");
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
    // what was outside ASCII is there as an escape (an en dash in a regular expression)
    expect(text).toContain("\\u2013");
  });

  it("ships the readable bundle minified, and blessed's fallback terminfo entries beside it", () => {
    const shipped = fs.readFileSync(BUNDLE, "utf8");
    const readable = bundleGraph().text;
    expect(shipped.length).toBeLessThan(readable.length * 0.75);
    // the same program: the same build of the same modules, without the whitespace
    expect(shipped).toContain("Module not found in bundle: ");
    expect(shipped.split("\n").length).toBeLessThan(readable.split("\n").length / 10);
    // blessed reads them for a TERM whose entry it cannot parse (Debian's xterm-256color is
    // in ncurses 6's format): dist/usr, as `__dirname + "/../usr/"` from dist/bundle
    for (const f of ["xterm", "xterm-256color", "xterm.termcap"]) expect(fs.existsSync(path.join(ROOT, "dist", "usr", f)), f).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[] };
    expect(pkg.files).toEqual(expect.arrayContaining(["dist/cli.js", "dist/bundle", "dist/usr"]));
    expect(pkg.files).not.toContain("dist/graph");
  });

  it("reads its version from the package's package.json, two folders up", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const out = execFileSync(process.execPath, [CLI, "--version"], { encoding: "utf8" });
    expect(out.trim()).toBe(pkg.version);
  });

  it("runs before the first frame only what the first frame needs", () => {
    const g = bundleGraph();
    expect(g.byInit.size).toBeGreaterThan(50);
    // the screen's module is imported before anything is drawn (screenFirst)
    const first = closure(g, [...g.entry.imports, moduleAt(g, "src/ui/app.ts").init]);
    for (const r of g.entry.requires) first.requires.add(r);
    for (const p of g.entry.paths) first.paths.add(p);
    expect(first.paths.has("src/cli.ts")).toBe(true);
    expect(first.paths.has("src/config/env-keys.ts")).toBe(true);
    expect(first.paths.has("src/ui/app.ts")).toBe(true);
    // blessed is bundled (its code comes from the code cache) and runs as the screen is made
    expect(g.text).toContain("// node_modules/blessed/lib/blessed.js");
    expect(g.text).not.toContain('require("blessed")');
    // zod, marked, the store, the controller and the providers run behind the frame
    const early = [...first.paths];
    expect(early.filter((p) => /^node_modules\/(zod|marked)\//.test(p))).toEqual([]);
    expect(early.filter((p) => /^src\/(store|controller|provider|extensions|turn|replay|compaction)\//.test(p))).toEqual([]);
    expect(early).not.toContain("src/tools/run.ts");
    expect([...first.requires].filter((p) => /^(sqlite3|undici|@modelcontextprotocol\/sdk|cli-highlight)/.test(p))).toEqual([]);
    // and they are in the bundle, lazily
    expect(moduleAt(g, "src/session/store/store.ts").requires).toContain("sqlite3");
  });

  it("requires the MCP SDK only in modules that run when a server starts", () => {
    const g = bundleGraph();
    const withSdk = [...g.byInit.values()].filter((m) => m.requires.some((r) => r.startsWith("@modelcontextprotocol/sdk")));
    expect(withSdk.map((m) => m.path).sort()).toEqual(["src/extensions/client.ts", "src/extensions/stdio.ts"]);
    // every require of it in the whole bundle is one of those modules' own
    const all = [...g.text.matchAll(/require\("(@modelcontextprotocol\/sdk[^"]*)"\)/g)].length;
    expect(all).toBe(withSdk.reduce((n, m) => n + m.requires.filter((r) => r.startsWith("@modelcontextprotocol/sdk")).length, 0));
    // nothing that runs at start-up or with the controller imports them statically
    const withController = closure(g, [...g.entry.imports, moduleAt(g, "src/session/controller/controller.ts").init]);
    for (const m of withSdk) expect(withController.paths.has(m.path), `${m.path} runs with the controller`).toBe(false);
  });

  it("carries zod's English messages only, and they still read as before", () => {
    const text = bundleGraph().text;
    expect(text).toContain("// node_modules/zod/v4/locales/en.js");
    expect(text).not.toMatch(/\/\/ node_modules\/zod\/v4\/locales\/(?!en\.js)/);
    // a config value of the wrong kind is reported in zod's English words
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-bundle-"));
    try {
      const file = path.join(dir, "config.json");
      fs.writeFileSync(file, JSON.stringify({ theme: 5 }));
      const r = spawnSync(process.execPath, [CLI, "--config", file, "-p", "hi"], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir },
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('field "theme": Invalid option: expected one of "dark"|"light"|"auto"');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the suite's starts share the run's own cache folder (code-cache-setup.ts)", () => {
    expect(process.env["ALBEDO_TEST_CODE_CACHE"]).toMatch(/albedo-test-cache-/);
    expect(TEST_CODE_CACHE).toBe(process.env["ALBEDO_TEST_CODE_CACHE"]);
  });

  // vm.Script does not apply --enable-source-maps on Node 20: the map is for tools and people
  it("has source maps that point at src/", () => {
    const map = JSON.parse(fs.readFileSync(`${BUNDLE}.map`, "utf8")) as { sources: string[] };
    expect(map.sources.some((s) => s.endsWith("src/cli.ts"))).toBe(true);
  });
});

describe("the screen through the bundle, and its code cache", () => {
  const KEY = "sk-ant-bundle-cache-5512";
  let home: Home | undefined;
  let cacheHome: string | undefined;
  const ptys: PtySession[] = [];
  afterEach(async () => {
    for (const t of ptys.splice(0)) if (!t.hasExited()) t.kill("SIGKILL");
    if (home) fs.rmSync(home.root, { recursive: true, force: true });
    if (cacheHome) fs.rmSync(cacheHome, { recursive: true, force: true });
    home = cacheHome = undefined;
  });

  const start = (extra: string[] = []): PtySession => {
    const t = spawnPty(process.execPath, [CLI, "--provider", "anthropic", "--model", "claude-sonnet-4-5", ...extra], {
      cwd: home!.workspace,
      env: { ...home!.env, XDG_CACHE_HOME: cacheHome!, ANTHROPIC_API_KEY: KEY },
    });
    ptys.push(t);
    return t;
  };
  /** Ctrl-C until it ends (a typed prompt is cleared first, then "again to quit") */
  const quit = async (t: PtySession): Promise<void> => {
    for (let i = 0; i < 10 && !t.hasExited(); i++) {
      t.send(KEYS.ctrl("c"));
      await new Promise((r) => setTimeout(r, 300));
    }
    expect((await t.exited()).exitCode).toBe(0);
  };
  const cacheFiles = (): string[] => {
    const dir = path.join(cacheHome!, "albedo", "code");
    // only whole caches: a writer's temporary file may be there for a moment
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".v8cache")) : [];
  };

  /** polls until `done` holds, for at most 20 s (the caller's assertion says what was wanted) */
  const until = async (done: () => boolean): Promise<void> => {
    const end = Date.now() + 20_000;
    while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  };

  /** a build's first start in a new home and cache folder, quit as soon as its session shows (as an outside run's warm-up); its cache files */
  const firstStart = async (): Promise<string[]> => {
    home = await makeHome();
    cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-cache-"));
    const first = start();
    await first.waitFor(/idle · .*claude-sonnet-4-5/, 20_000);
    // nothing is written while the screen is up and idle
    await new Promise((r) => setTimeout(r, 300));
    expect(cacheFiles()).toEqual([]);
    await quit(first);
    return cacheFiles();
  };

  it("finds the named keymaps from inside the bundle", async () => {
    home = await makeHome();
    cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-cache-"));
    const vim = start(["--keymap", "vim"]);
    await vim.waitFor(/idle · .*claude-sonnet-4-5/, 20_000);
    expect(vim.screenText()).not.toContain("keymap");
    await quit(vim);
    // the same start with a name that does not exist says so: the check above can see a warning
    const none = start(["--keymap", "nosuch"]);
    await none.waitFor("keymap nosuch.json: cannot read", 20_000);
    await quit(none);
  });

  it("writes V8's code once, at the exit of a first start quit at once, and the next start uses it without writing again", async () => {
    const files = await firstStart();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^cli-[0-9a-f]{12}-[0-9a-f]{32}-v\d+\.\d+\.\d+-\w+-\d+-\d+\.v8cache$/);
    const file = path.join(cacheHome!, "albedo", "code", files[0]!);
    const before = fs.statSync(file);
    // private: owner-only folder and file
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(before.mode & 0o777).toBe(0o600);
    // V8's code holds the program's text, never what it read at run time (the key)
    expect(fs.readFileSync(file).includes(Buffer.from(KEY))).toBe(false);
    expect(fs.readFileSync(file).includes(Buffer.from(KEY, "utf16le"))).toBe(false);

    // a start that used it has nothing to write: same file, untouched, after the moment it would write
    const second = start();
    await second.waitFor(/idle · .*claude-sonnet-4-5/, 20_000);
    await new Promise((r) => setTimeout(r, 3000));
    second.send("hello");
    await second.waitFor("› hello");
    await quit(second);
    expect(cacheFiles()).toEqual(files);
    const after = fs.statSync(file);
    expect([after.ino, after.mtimeMs, after.size]).toEqual([before.ino, before.mtimeMs, before.size]);
  });

  it("starts from source when the saved code is damaged, and replaces it", async () => {
    const [name] = await firstStart();
    const file = path.join(cacheHome!, "albedo", "code", name!);
    const good = fs.readFileSync(file);
    // one flipped byte in the middle of V8's data
    const bad = Buffer.from(good);
    const mid = Math.floor(bad.length / 2);
    bad[mid] = bad[mid]! ^ 0xff;
    fs.writeFileSync(file, bad);
    const second = start();
    await second.waitFor(/idle · .*claude-sonnet-4-5/, 20_000);
    second.send("still here");
    await second.waitFor("› still here");
    await quit(second);
    // replaced at its exit
    await until(() => !fs.readFileSync(file).equals(bad));
    expect(fs.readFileSync(file).equals(bad)).toBe(false);
  });

  it("a run that only prints (--version, --help) writes no code cache: its code is not a start's", async () => {
    home = await makeHome();
    cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-cache-"));
    for (const arg of ["--version", "--help"]) {
      const r = spawnSync(process.execPath, [CLI, arg], { env: { ...home.env, XDG_CACHE_HOME: cacheHome }, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    expect(cacheFiles()).toEqual([]);
  });
});
