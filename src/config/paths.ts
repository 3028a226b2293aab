// Where albedo keeps its data, state and config (XDG base directories).
import os from "node:os";
import path from "node:path";

function xdg(varName: string, fallback: string): string {
  const v = process.env[varName];
  return v && path.isAbsolute(v) ? v : path.join(os.homedir(), fallback);
}

export function dataDir(): string {
  return path.join(xdg("XDG_DATA_HOME", ".local/share"), "albedo");
}

export function stateDir(): string {
  return path.join(xdg("XDG_STATE_HOME", ".local/state"), "albedo");
}

export function configDir(): string {
  return path.join(xdg("XDG_CONFIG_HOME", ".config"), "albedo");
}

export function defaultDbPath(): string {
  return path.join(dataDir(), "history.sqlite");
}

export function defaultConfigPath(): string {
  return path.join(configDir(), "config.json");
}
