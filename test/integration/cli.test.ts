// The command line of SPEC §9 on the built CLI and a real store: help, version, the
// subcommands that read the record, and their errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { makeHome, runCli, type Home } from "../helpers/cli.js";

const KEY = "sk-cli-test-5150";
let fake: FakeProvider;
let home: Home;
let id: string;

beforeAll(async () => {
  fake = await startFakeProvider({ key: KEY });
  home = await makeHome({ ANTHROPIC_API_KEY: KEY });
  await fs.writeFile(path.join(home.workspace, "a.txt"), "alpha\n");
  fake.script({ toolCalls: [{ name: "read", input: { path: "a.txt" } }] }, { text: "It says **alpha**." });
  const r = await runCli(["-p", "what is in a.txt?", "--base-url", fake.anthropicBase, "--model", "claude-sonnet-4-5"], home);
  expect(r.code).toBe(0);
  const list = await runCli(["sessions", "--json"], home);
  id = (JSON.parse(list.stdout) as { id: string }[])[0]!.id;
});
afterAll(() => fake.close());

describe("albedo-tui command line", () => {
  it("--help declares every option and subcommand of the spec", async () => {
    const r = await runCli(["--help"], home);
    expect(r.code).toBe(0);
    for (const opt of [
      "--provider", "--model", "--base-url", "--db", "--workspace", "--continue", "--resume", "--permission",
      "--compaction", "--keymap", "--api", "--api-port", "--print", "--image", "--reasoning", "--version", "--help",
    ]) {
      expect(r.stdout, opt).toContain(opt);
    }
    for (const sub of ["sessions", "export", "context"]) expect(r.stdout).toMatch(new RegExp(`^\\s+${sub}\\b`, "m"));
  });

  it("--version prints the package version", async () => {
    const pkg = JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };
    const r = await runCli(["--version"], home);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("sessions lists newest first, as text and JSON", async () => {
    const json = JSON.parse((await runCli(["sessions", "--json"], home)).stdout) as { id: string; title: string; workspace: string }[];
    expect(json[0]).toMatchObject({ id, title: "what is in a.txt?", workspace: home.workspace });
    const text = (await runCli(["sessions"], home)).stdout;
    expect(text).toContain(id);
    expect(text).toContain("what is in a.txt?");
  });

  it("export prints Markdown and JSON from the record", async () => {
    const md = await runCli(["export", id, "--format", "md"], home);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("what is in a.txt?");
    expect(md.stdout).toContain("It says **alpha**.");
    expect(md.stdout).toContain("read");
    const js = await runCli(["export", id, "--format", "json"], home);
    const parsed = JSON.parse(js.stdout) as { session: { id: string }; messages: { role: string }[] };
    expect(parsed.session.id).toBe(id);
    expect(parsed.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(js.stdout).not.toContain(KEY);
  });

  it("export of an unknown id names it and exits 1", async () => {
    const r = await runCli(["export", "nosuchsession"], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no session with id "nosuchsession"');
    expect(r.stdout).toBe("");
  });

  it("context prints the summary, a page, and JSON; bad section/page ids are errors", async () => {
    const sum = await runCli(["context", id], home);
    expect(sum.code).toBe(0);
    expect(sum.stdout).toMatch(/system/);
    expect(sum.stdout).toMatch(/workspace facts/);
    expect(sum.stdout).toMatch(/history/);
    expect(sum.stdout).toMatch(/tools/);
    expect(sum.stdout).toMatch(/chars\/4/);
    const view = JSON.parse((await runCli(["context", id, "--json"], home)).stdout) as { state: string; sections: { source: string; pages: number }[] };
    expect(view.state).toBe("current");
    const hist = view.sections.findIndex((s) => s.source === "history");
    const page = await runCli(["context", id, "--section", String(hist), "--page", "0"], home);
    expect(page.code).toBe(0);
    expect(page.stdout).toContain("Tool use: read(");
    expect(page.stdout).toMatch(/page 1 of 1/);
    const pj = JSON.parse((await runCli(["context", id, "--section", String(hist), "--page", "0", "--json"], home)).stdout) as { page: number; text: string };
    expect(pj.page).toBe(0);
    for (const bad of [["--section", "99"], ["--section", String(hist), "--page", "7"], ["--section", "-1"], ["--section", "x"]]) {
      const r = await runCli(["context", id, ...bad], home);
      expect(r.code, bad.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/section|page/);
    }
  });
});
