// The README is held to the code: its config example is a valid config, its field table
// names exactly the fields the config accepts, and every option and command of --help is in it.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { configSchema, parseConfig } from "../../src/config/config.js";
import { CLI } from "../helpers/cli.js";

const README = fs.readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");

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
});
