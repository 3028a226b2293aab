// What the controller is started with: the settings it runs with, the store, and how the
// session opens; and which of the settings /reload applies to a running session.
import type { Settings } from "../../config/resolve.js";
import type { HistoryStore } from "../store/types.js";

/** The settings the controller runs with: all of them but the screen's key bindings and colours. */
export type AppSettings = Omit<Settings, "keymap" | "keys" | "theme">;

/** the settings /reload reads again and applies to the running session */
export type Reloadable = Pick<AppSettings, "permission" | "compaction" | "reasoning" | "credentials">;

export interface AppOptions extends AppSettings {
  store: HistoryStore;
  /** the config file this run reads, named when a key is missing */
  configFile?: string;
  /** the session to open: an id, "latest" of the workspace, or a new one; with `fork`, a
   * fork of it at its end instead (--fork-session) */
  open: { resume: string; fork?: boolean } | { continue: true; fork?: boolean } | { fresh: true };
  /** the screen: the session loads without the adapters, tools and turn (parts.ts), and the
   * screen calls ready() after the frame that shows it; otherwise create() loads them first */
  partsAfterFrame?: boolean;
  /** how permission questions are answered when no screen asks a person */
  headless: boolean;
  /** re-reads the settings on /reload; of them, permission, compaction, reasoning and the
   * credentials take effect */
  reloadConfig?: () => Promise<Partial<Reloadable>>;
  /** the folder the turns' file checkpoints are kept in (the CLI's is in the state folder);
   * absent: none are kept or restored; the config's checkpoints.enabled false: a turn keeps
   * none, and a rewind still restores those kept before */
  checkpointDir?: string;
  /** the folder of drafts, the workspace's prompt history and detached turns' notes
   * (alongside.ts); absent: none are kept */
  alongsideDir?: string;
}

/** /reload: reads the settings again and applies those that take effect in a running
 * session. Gives what they were, or undefined when there is no config to read again. */
export async function reloadSettings(opts: AppOptions): Promise<Reloadable | undefined> {
  if (!opts.reloadConfig) return undefined;
  const was: Reloadable = { permission: opts.permission, compaction: opts.compaction, reasoning: opts.reasoning, credentials: opts.credentials };
  const fresh = await opts.reloadConfig();
  if (fresh.permission) opts.permission = fresh.permission;
  if (fresh.compaction) opts.compaction = fresh.compaction;
  if (fresh.reasoning) opts.reasoning = fresh.reasoning;
  if (fresh.credentials) opts.credentials = fresh.credentials;
  return was;
}
