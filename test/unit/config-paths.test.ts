// The XDG folders (src/config/paths.ts): never relative, so a start with an empty or relative
// HOME cannot put the history, the log or the code cache in the folder it was started from.
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cacheDir, configDir, dataDir, stateDir } from "../../src/config/paths.js";

const saved = { ...process.env };
afterEach(() => {
  for (const k of ["HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

describe("the XDG folders", () => {
  it("follow HOME and the XDG variables when they are absolute", () => {
    process.env.HOME = "/h/me";
    for (const k of ["XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) delete process.env[k];
    expect([dataDir(), stateDir(), configDir(), cacheDir()]).toEqual(["/h/me/.local/share/albedo", "/h/me/.local/state/albedo", "/h/me/.config/albedo", "/h/me/.cache/albedo"]);
    process.env.XDG_CACHE_HOME = "/c";
    process.env.XDG_DATA_HOME = "relative/data"; // ignored, as the spec says
    expect(cacheDir()).toBe("/c/albedo");
    expect(dataDir()).toBe("/h/me/.local/share/albedo");
  });

  it("with an empty or relative HOME, use the account's home folder, never the working folder", () => {
    const account = os.userInfo().homedir;
    expect(path.isAbsolute(account)).toBe(true);
    for (const home of ["", "relative/home", "."]) {
      process.env.HOME = home;
      for (const k of ["XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) delete process.env[k];
      for (const d of [dataDir(), stateDir(), configDir(), cacheDir()]) {
        expect(path.isAbsolute(d), `${d} with HOME=${JSON.stringify(home)}`).toBe(true);
        expect(d.startsWith(account)).toBe(true);
      }
    }
  });
});
