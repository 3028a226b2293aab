// The README is held to the code: its config example is a valid config, its field table
// names exactly the fields the config accepts, every option and command of --help is in it,
// its dependency table names exactly package.json's packages, and its links (and those of the
// docs it sends a reader to) reach a file and a heading that exist. scripts/check-pack.ts runs
// its first command.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { configSchema, parseConfig } from "../../src/config/config.js";
import { CLI } from "../helpers/cli.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchors(markdown: string): Set<string> {
  const outside = markdown.replace(/```[\s\S]*?```/g, "");
  return new Set([...outside.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
}

/** Every [text](target) outside code: the targets that are not web addresses. */
function localLinks(markdown: string): string[] {
  const outside = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...outside.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe("README truth", () => {
  it("the config example parses and validates against the config schema", () => {
    const m = /```json\n(\{[\s\S]*?\})\n```/.exec(README);
    expect(m, "a ```json config example").not.toBeNull();
    const config = parseConfig(m![1]!, "README.md");
    expect(config.provider).toBeDefined();
  });

  it("the field table names exactly the fields the config accepts", () => {
    const table = README.slice(README.indexOf("| field | what it sets |"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    const named = new Set(rows.flatMap((r) => [...(r.split("|")[1] ?? "").matchAll(/`([A-Za-z]+)`/g)].map((x) => x[1]!)));
    expect([...named].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });

  it("every option and command of --help is in the README", () => {
    const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" }).stdout;
    const flags = [...new Set([...help.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((m) => m[1]!))].filter((f) => f !== "--help" && f !== "--version");
    expect(flags.length).toBeGreaterThan(10);
    for (const f of flags) expect(README, f).toContain(f);
    const commands = [...help.slice(help.indexOf("Commands:")).matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== "help");
    expect(commands).toEqual(expect.arrayContaining(["sessions", "export", "context"]));
    for (const c of commands) expect(README, c).toMatch(new RegExp(`albedo-tui ${c}\\b`));
  });

  it("the dependency table names every dependency and devDependency of package.json, and nothing else", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const table = README.slice(README.indexOf("| package | why |"));
    const rows = table.slice(0, table.indexOf("\n\n") < 0 ? undefined : table.indexOf("\n\n")).trim().split("\n").slice(2);
    const named = rows.map((r) => (r.split("|")[1] ?? "").trim());
    const want = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies).map((d) => `${d} (dev)`)];
    expect([...named].sort()).toEqual(want.sort());
  });

  it("every link of the README and of the docs it links reaches a file, and a heading when it names one", () => {
    const docs = ["README.md", "docs/design-notes.md", "docs/performance.md", "docs/providers.md"];
    let checked = 0;
    for (const doc of docs) {
      const text = fs.readFileSync(path.join(ROOT, doc), "utf8");
      for (const link of localLinks(text)) {
        const [file, hash] = link.split("#") as [string, string | undefined];
        const target = file === "" ? path.join(ROOT, doc) : path.resolve(path.dirname(path.join(ROOT, doc)), file);
        expect(fs.existsSync(target), `${doc}: ${link}`).toBe(true);
        if (hash !== undefined) expect(anchors(fs.readFileSync(target, "utf8")), `${doc}: ${link}`).toContain(hash);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});
