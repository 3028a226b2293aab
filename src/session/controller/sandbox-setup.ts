// The sandbox the session's commands run in: the setting, bubblewrap's probe (once a run, off
// the first frame's path), and what the sandbox hides of albedo-tui's own (history, token
// files, the config with its keys, the caches). When bubblewrap does not work the person is
// told once, plainly, and commands run unsandboxed, so `ask` asks about each of them.
import path from "node:path";
import { cacheDir, configDir, dataDir, stateDir } from "../../config/paths.js";
import type { SandboxSetting } from "../../tools/sandbox.js";
import { probeSandbox, type CommandSandbox, type SandboxProbe } from "../../tools/spawn-command.js";

/** the sentence said once when commands cannot be sandboxed */
export function unsandboxedSentence(why: string): string {
  return `Commands run UNSANDBOXED: ${why}. They can read and change anything you can, so --permission ask asks before each one. Install bubblewrap (apt install bubblewrap) to sandbox them, or pass --sandbox off to silence this.`;
}

export class SandboxSetup {
  private probe: SandboxProbe | undefined;

  private readonly s: { sandbox: SandboxSetting; network: boolean; workspace: string; dbPath: string; configFile?: string | undefined };

  /** an absent setting is the default: workspace-write, no network */
  constructor(s: { sandbox?: SandboxSetting | undefined; network?: boolean | undefined; workspace: string; dbPath: string; configFile?: string | undefined }) {
    this.s = { ...s, sandbox: s.sandbox ?? "workspace-write", network: s.network ?? false };
  }

  /** Probes bubblewrap (when a sandbox is wanted); gives the sentence to say when it does not work. */
  async ready(): Promise<string | undefined> {
    if (this.s.sandbox === "off" || this.probe) return undefined;
    this.probe = await probeSandbox();
    return this.probe.ok ? undefined : unsandboxedSentence(this.probe.why);
  }

  /** whether commands run sandboxed (known after ready()) */
  active(): boolean {
    return this.s.sandbox !== "off" && this.probe?.ok === true;
  }

  /** what a command runs in; undefined: unsandboxed (off, not probed yet, or not working) */
  forCommands(): CommandSandbox | undefined {
    if (this.s.sandbox === "off" || !this.probe?.ok) return undefined;
    return {
      bwrap: this.probe.bwrap,
      mode: this.s.sandbox,
      workspace: this.s.workspace,
      network: this.s.network,
      hidden: ownPaths(this.s.dbPath, this.s.configFile),
    };
  }

  /** the status line's word for it */
  label(): string {
    if (this.s.sandbox === "off") return "sandbox off";
    if (!this.probe) return "sandbox ...";
    return this.probe.ok ? `sandbox ${this.s.sandbox}` : "UNSANDBOXED";
  }
}

/** albedo-tui's own folders and files: never visible to a sandboxed command */
export function ownPaths(dbPath: string, configFile?: string): string[] {
  const out = [dataDir(), stateDir(), configDir(), cacheDir(), dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`, `${dbPath}-open`];
  if (configFile !== undefined) out.push(configFile);
  return out.map((p) => path.resolve(p));
}

