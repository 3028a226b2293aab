// What the front ends show of the running app (the status line, the start-up lines): the
// model in use and what is known of it, the settings in force, where things are kept, and
// what is missing.
import { supportsReasoning, type ModelInfo } from "../../provider/catalog.js";
import type { AppInfo } from "./types.js";
import type { AppOptions } from "./options.js";
import { baseUrlFor, type ProviderInUse } from "./provider-setup.js";

export function appInfo(inUse: ProviderInUse, opts: AppOptions, api: AppInfo["api"]): AppInfo {
  const m = inUse.info();
  const keyProblem = inUse.keyProblem();
  return {
    provider: inUse.provider,
    model: inUse.model,
    baseUrl: baseUrlFor(opts, inUse.provider),
    ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}),
    vision: m.vision,
    permission: opts.permission,
    compaction: opts.compaction,
    reasoning: opts.reasoning,
    // the adapters send no reasoning setting to a model the catalog knows takes none
    ...(opts.reasoning !== "off" && supportsReasoning(inUse.model) === false ? { reasoningNote: `reasoning not available for ${inUse.model}` } : {}),
    ...(modelNote(m) ? { modelNote: modelNote(m) as string } : {}),
    workspace: opts.workspace,
    dbPath: opts.store.path,
    ...(keyProblem ? { keyProblem } : {}),
    ...(api ? { api } : {}),
  };
}

/** What the status line says of a model no source knows, or knows only by its line. */
export function modelNote(m: ModelInfo): string | undefined {
  if (!m.known) return `unknown model: assumed ${m.assumed ?? "no window"}`;
  if (m.source === "line") return "figures assumed from its line";
  return undefined;
}
