#!/usr/bin/env node
// The command line: TUI by default, -p for headless, subcommands that read the record.
import { Command, Option } from "commander";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "./config/config.js";
import { takeEnvKeys } from "./config/env-keys.js";
import { defaultConfigPath, defaultDbPath, stateDir } from "./config/paths.js";
import { fieldForStream, forStream, jsonForStream } from "./ui/output.js";
import { resolveSettings, UsageError, type Flags, type Settings } from "./config/resolve.js";
import { PERMISSION_MODES } from "./tools/types.js";
import { SANDBOX_SETTINGS } from "./tools/sandbox.js";
import type { App } from "./session/controller/controller.js";
import type { ImageBlock, Session } from "./record/types.js";
import { messageOf } from "./record/errors.js";
import { quoteId, sessionIdProblem } from "./record/session-id.js";
import type { HistoryStore } from "./session/store/types.js";
import type { Tui } from "./ui/app.js";
import { limitCoreDumps } from "./config/core-limit.js";
import { startupCodeRan } from "./config/startup-signal.js";

// The provider keys leave the environment before anything else runs: out of process.env (so
// no tool inherits them) and out of /proc/<pid>/environ; settings read the snapshot (env-keys.ts).
takeEnvKeys();

// V8's flags are set by the bin before this module is compiled (src/launch/main.ts).

// package.json is one folder up from tsc's dist/cli.js and two from the bundle's dist/bundle/cli.cjs
const here = path.dirname(fileURLToPath(import.meta.url));
const pkgFile = [path.join(here, "../package.json"), path.join(here, "../../package.json")].find((f) => fs.existsSync(f));
if (!pkgFile) throw new Error(`albedo-tui: package.json not found above ${here}`);
const version = (JSON.parse(fs.readFileSync(pkgFile, "utf8")) as { version: string }).version;

class CliError extends Error {
  constructor(message: string, readonly code = 1) {
    super(message);
  }
}

/** forReading: the commands that only read also open a database that cannot be written */
async function openDb(file: string | undefined, forReading = false): Promise<HistoryStore> {
  const { openStore } = await import("./session/store/store.js");
  return openStore(path.resolve(file ?? defaultDbPath()), { readOnlyFallback: forReading });
}

// The config module brings zod (~35 ms to import): it loads while the screen is already up.
async function readConfig(file: string | undefined): Promise<Config> {
  const { loadConfig } = await import("./config/config.js");
  return loadConfig(file ?? defaultConfigPath()).config;
}

interface MainOptions extends Flags {
  config?: string;
  print?: string;
  image?: string[];
  api?: boolean;
  apiPort?: string;
  /** with --resume or --continue: open a fork of the session at its end instead */
  forkSession?: boolean;
}

/**
 * A session id from the command line, refused before anything is opened when it cannot name
 * a session (empty, only whitespace, control characters): `where` says which argument.
 */
function refuseBadSessionId(id: string, where: string): void {
  const problem = sessionIdProblem(id);
  if (problem) throw new UsageError(`${where}: ${problem}; albedo-tui sessions lists the ids`);
}

/** The session flags' own mistakes, said before the screen is drawn or anything is read.
 * An empty --resume is a mistake too, never "no session given". */
function checkSessionFlags(opts: MainOptions): void {
  if (opts.continue && opts.resume !== undefined) throw new UsageError("use --continue or --resume ID, not both");
  if (opts.resume !== undefined) refuseBadSessionId(opts.resume, "--resume");
  if (opts.forkSession && opts.resume === undefined && !opts.continue) throw new UsageError("--fork-session goes with --resume ID or --continue: it opens a fork of that session");
}

/** where the turns' file checkpoints live: the state folder, outside every workspace */
const checkpointDir = (): string => path.join(stateDir(), "checkpoints");

/** the session an id or the start of one names (find-session.ts), or the sentence why none */
async function sessionNamed(store: HistoryStore, id: string): Promise<Session> {
  const { findSession, sessionNotFound } = await import("./session/store/find-session.js");
  const f = await findSession(store, id);
  if (f.ok) return f.session;
  throw new CliError(sessionNotFound(f, store.path));
}

interface Loaded {
  app: App;
  settings: Settings;
  api: { close(): Promise<void> } | undefined;
  /** -p's images, read before anything was stored */
  images: ImageBlock[];
}

function startChildrenEarly(sandbox: string | undefined): void {
  limitCoreDumps();
  if (sandbox !== "off") void import("./tools/spawn-command.js").then((m) => m.probeSandbox()).catch(() => undefined);
}

/** config, settings, store, app and the local API: everything a session needs, in order */
async function load(opts: MainOptions, headless: boolean, screen = false): Promise<Loaded> {
  const config = await readConfig(opts.config);
  const settings = resolveSettings(opts, config);
  checkSessionFlags(opts);
  // the screen's two children start first, while the heap is small (a spawn copies its page
  // tables) and so they are done by the session's frame: the sandbox's probe and prlimit
  if (screen) startChildrenEarly(settings.sandbox);
  if (!fs.existsSync(settings.workspace) || !fs.statSync(settings.workspace).isDirectory()) {
    throw new UsageError(`--workspace is not a folder: ${settings.workspace}`);
  }
  if (!headless && opts.image?.length) throw new UsageError("--image goes with -p; in the screen, attach with /image PATH");
  // images are read before anything is stored, so a refused image leaves no trace
  const images: ImageBlock[] = [];
  if (headless) {
    // "-p -": the prompt is all of stdin (no argument-length limit); "-p TEXT" never reads stdin
    if (opts.print === "-") opts.print = await (await import("./config/files.js")).readPromptFromStdin();
    if (!opts.print?.trim() && !opts.image?.length) throw new UsageError("-p needs a prompt");
    const { loadImage } = await import("./session/controller/images.js");
    for (const f of opts.image ?? []) images.push(await loadImage(path.resolve(settings.workspace, f), settings.provider));
  }
  const store = await openDb(opts.db);
  const { App, UnknownSessionError, MissingKeyError, SessionHeldError } = await import("./session/controller/controller.js");
  let app;
  try {
    app = await App.create({
      ...settings,
      store,
      open:
        opts.resume !== undefined
          ? { resume: opts.resume, ...(opts.forkSession ? { fork: true } : {}) }
          : opts.continue
            ? { continue: true, ...(opts.forkSession ? { fork: true } : {}) }
            : { fresh: true },
      headless,
      // the screen shows the session first and loads the turn's parts after that frame
      ...(screen ? { partsAfterFrame: true } : {}),
      configFile: path.resolve(opts.config ?? defaultConfigPath()),
      reloadConfig: async () => resolveSettings(opts, await readConfig(opts.config)),
      checkpointDir: checkpointDir(),
      alongsideDir: path.join(stateDir(), "alongside"),
    });
  } catch (e) {
    await store.close();
    if (e instanceof UnknownSessionError || e instanceof MissingKeyError || e instanceof SessionHeldError) throw new CliError(e.message);
    throw e;
  }

  let api: Loaded["api"];
  if (opts.api) {
    try {
      const port = opts.apiPort === undefined ? 0 : Number(opts.apiPort);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--api-port must be a port number (got "${opts.apiPort}")`);
      const { startApiServer } = await import("./context/api/server.js");
      // one file per running instance, named by its port: two instances must not share a token file
      const server = await startApiServer({ store, port, unstored: () => app.unstoredSession(), tokenFile: (p) => path.join(stateDir(), `api-token-${p}`) });
      app.setApi({ url: server.url, tokenFile: server.tokenFile });
      // The screen shows it (/api, /help, its first lines): on the terminal the screen is about
      // to cover, this line would be lost. Headless, or with stderr sent to a file, it is kept.
      if (headless || !process.stderr.isTTY) process.stderr.write(`albedo-tui: local API on ${server.url} (token in ${server.tokenFile})\n`);
      api = server;
    } catch (e) {
      await app.close();
      throw e;
    }
  }
  return { app, settings, api, images };
}

/**
 * Loading undici takes 100–250 ms of the main thread on these machines: paid at the
 * first request it stood between Enter and the request leaving. The screen loads it at the
 * person's first key (ui/first-key.ts), so it neither delays the session's frame nor runs
 * while the screen says idle, and is in before a prompt is typed; a request sent before then
 * shares the same load.
 */
function preloadHttpSoon(ms: number): void {
  const t = setTimeout(() => void import("./provider/http.js").then((m) => m.preloadHttpClient()), ms);
  // never the reason the process stays up
  t.unref();
}

async function main(opts: MainOptions): Promise<number> {
  const headless = opts.print !== undefined;
  // headless sends its request as soon as the session is open: the client loads meanwhile,
  // in the gaps while the config and the store are read
  if (headless) preloadHttpSoon(0);
  if (!headless) {
    // before anything is drawn or started (the API included): a terminal that cannot move the
    // cursor would show the screen as garbage (terminal-check.ts says which, and why not an unset TERM)
    const { screenRefusal } = await import("./ui/terminal-check.js");
    const refusal = screenRefusal(process.env.TERM);
    if (refusal) throw new UsageError(refusal);
  }
  // With a person at a terminal, the screen comes first and the session loads behind it
  // (with --api too: the screen shows the API's address, see load()).
  if (!headless && process.stdin.isTTY && process.stdout.isTTY) return screenFirst(opts);
  const { app, settings, api, images } = await load(opts, headless);
  try {
    const forked = app.session().forkedFrom;
    if (opts.forkSession && forked) {
      process.stderr.write(`albedo-tui: ${forStream(`forked session ${forked.id} at its end; this run goes on in the fork, ${app.session().id}`, process.stderr)}\n`);
    }
    if (headless) {
      const prompt = opts.print ?? "";
      const code = await (await import("./ui/headless.js")).runHeadless(app, prompt, images);
      startupCodeRan();
      return code;
    }
    const { runTui } = await import("./ui/app.js");
    const { loadKeymap } = await import("./ui/keymap.js");
    const { keymap, warnings } = loadKeymap(settings.keymap, settings.keys);
    return await runTui(app, { keymap, keymapWarnings: warnings, theme: settings.theme, notify: settings.notify ?? "auto", hangup: settings.hangup ?? "continue", noColor: Boolean(process.env.NO_COLOR) });
  } finally {
    await api?.close();
    await app.close();
  }
}

/**
 * The screen first: it is drawn before the config, the store and the app are loaded, takes
 * keys meanwhile, and is given the session when it is ready. A failure while loading takes
 * the screen down first, so the message is printed on the restored terminal, exactly as it
 * would have been without a screen (same words, same exit code).
 */
async function screenFirst(opts: MainOptions): Promise<number> {
  // mistakes in the command line alone are reported before anything is drawn
  checkSessionFlags(opts);
  if (opts.image?.length) throw new UsageError("--image goes with -p; in the screen, attach with /image PATH");
  const { startTui } = await import("./ui/app.js");
  const tui: Tui = startTui({ noColor: Boolean(process.env.NO_COLOR) });
  let loaded: Loaded;
  try {
    loaded = await load(opts, false, true);
  } catch (e) {
    tui.close();
    throw e;
  }
  const { app, settings, api } = loaded;
  try {
    const { loadKeymap } = await import("./ui/keymap.js");
    const { keymap, warnings } = loadKeymap(settings.keymap, settings.keys);
    // where commands run, in the session's frame (the probe began with the load)
    await app.sayWhereCommandsRun().catch(() => undefined);
    // after a quit during start-up this resolves at once with that quit's code
    const done = tui.attach(app, {
      keymap,
      keymapWarnings: warnings,
      theme: settings.theme,
      notify: settings.notify ?? "auto",
      hangup: settings.hangup ?? "continue",
      // the bin's code cache is written at exit, with what this start compiled
      afterSessionFrame: startupCodeRan,
      // the turn's parts and the HTTP client load at the first key, so an idle screen does
      // nothing; a prompt sent sooner waits for them, and a failure to load them is reported
      // by the turn that needs them
      onFirstKey: () => {
        void app.ready().catch(() => undefined);
        preloadHttpSoon(0);
      },
    });
    return await done;
  } catch (e) {
    tui.close();
    throw e;
  } finally {
    // with --api the server closes first: it reads the store that the app closes
    await api?.close();
    await app.close();
  }
}

/** A whole number as a person types it ("3", "03"), or undefined for anything else ("-1", "1.5", "x"). */
function wholeNumber(s: string): number | undefined {
  if (!/^[0-9]{1,15}$/.test(s)) return undefined;
  return Number(s);
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function buildProgram(): Command {
  const program = new Command();
  program
    .name("albedo-tui")
    .description("A terminal coding agent that shows exactly what it sends the model.")
    .version(version, "-V, --version")
    .addOption(new Option("--provider <name>", "model provider").choices(["anthropic", "openai"]))
    .option("--model <name>", "model name (default: the provider's default)")
    .option("--base-url <url>", "provider base URL (OpenAI-compatible servers: Ollama, llama.cpp, vLLM, LM Studio)")
    .option("--db <path>", `history database (default: ${defaultDbPath()})`)
    .option("--config <path>", `config file (default: ${defaultConfigPath()})`)
    .option("--workspace <dir>", "project folder the tools work in (default: the current folder)")
    .option("-c, --continue", "continue the latest session of this workspace")
    .option("-r, --resume <id>", "resume the session with this id")
    .option("--fork-session", "with --resume or --continue: open a fork of that session (its whole record, under a new id; the original stays as it is)")
    .addOption(new Option("--permission <mode>", "what tools may do without asking (Shift-Tab cycles in the screen)").choices([...PERMISSION_MODES]))
    .addOption(new Option("--sandbox <mode>", "where bash commands run: bubblewrap with the workspace writable, read-only, or off").choices([...SANDBOX_SETTINGS]))
    .addOption(new Option("--compaction <strategy>", "how long histories are shortened for the model").choices(["none", "microcompact", "summary", "microcompact+summary"]))
    .option("--keymap <name>", "key bindings: default, vim, emacs, or a path to a JSON file")
    .option("--api", "serve the read-only local API on 127.0.0.1")
    .option("--api-port <n>", "port for --api (default: any free port)")
    .option("-p, --print <prompt>", "headless: run one turn, print the answer, exit 0 (or 1 on failure); -p - reads the prompt from stdin")
    .option("--image <file>", "attach an image to the prompt (repeatable)", collect)
    .addOption(new Option("--reasoning <level>", "model reasoning effort").choices(["off", "low", "medium", "high"]))
    .action(async (opts: MainOptions) => {
      process.exitCode = await main(opts);
    });

  const sessions = program
    .command("sessions")
    .description("list sessions, newest first (sessions with no message are not listed)")
    .option("--json", "print JSON")
    .option("--db <path>", "history database")
    .action(async (o: { json?: boolean; db?: string }) => {
      const store = await openDb(o.db ?? program.opts<{ db?: string }>().db, true);
      const out = process.stdout;
      try {
        // each marked where it is open elsewhere: "open elsewhere", "running (detached)"
        const [{ withPlaces }, { thisProcess }] = await Promise.all([import("./session/store/open-marks.js"), import("./session/controller/session-lease.js")]);
        const list = await withPlaces(store, await store.listSessions(), thisProcess);
        if (o.json) {
          const { costsOfSessions } = await import("./session/controller/session-costs.js");
          const withCost = await costsOfSessions(store, list, () => readConfig(program.opts<{ config?: string }>().config), (l) =>
            process.stderr.write(forStream(l, process.stderr) + "\n"),
          );
          out.write(jsonForStream(JSON.stringify(withCost, null, 2), out) + "\n");
        } else if (list.length === 0) {
          out.write("No sessions yet.\n");
        } else {
          const { sessionLines } = await import("./ui/session-list.js");
          // titles and folders come from prompts and paths: inert on a terminal, exact when piped
          for (const line of sessionLines(list, new Date(), (t) => fieldForStream(t, out))) out.write(line + "\n");
        }
      } finally {
        await store.close();
      }
    });

  sessions
    .command("rm <id>")
    .description("delete a session with its messages, captures and summaries")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--db <path>", "history database")
    .action(async (id: string, o: { yes?: boolean; db?: string }) => {
      refuseBadSessionId(id, "sessions rm");
      const store = await openDb(o.db ?? sessions.opts<{ db?: string }>().db ?? program.opts<{ db?: string }>().db);
      try {
        const s = await sessionNamed(store, id);
        id = s.id;
        const { messages } = await store.loadHistory(id);
        const what = `session ${s.id} "${fieldForStream(s.title || "(untitled)", process.stderr)}" (${messages.length} message${messages.length === 1 ? "" : "s"})`;
        if (!o.yes) {
          if (!process.stdin.isTTY) throw new UsageError(`sessions rm asks before deleting; with no terminal to ask on, pass --yes to delete ${what}`);
          const { createInterface } = await import("node:readline/promises");
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          const answer = await rl.question(`Delete ${what}? This cannot be undone. [y/N] `);
          rl.close();
          if (!/^y(es)?$/i.test(answer.trim())) {
            process.stderr.write("Nothing deleted.\n");
            return;
          }
        }
        await store.deleteSession(id);
        process.stderr.write(`Deleted ${what}.\n`);
      } finally {
        await store.close();
      }
    });

  program
    .command("rewind <id>")
    .description("go back to before a prompt: restore the files the turns from it on changed, and/or fork the conversation there (the original session stays whole)")
    .requiredOption("--to <n>", "the prompt, counted from 1 as the screen counts them")
    .option("--code", "restore the files only")
    .option("--conversation", "fork the conversation only")
    .option("--both", "restore the files and fork the conversation (the default)")
    .option("--dry-run", "print what would change; change nothing")
    .option("--json", "print JSON")
    .option("--db <path>", "history database")
    .action(async (id: string, o: { to: string; code?: boolean; conversation?: boolean; both?: boolean; dryRun?: boolean; json?: boolean; db?: string }) => {
      refuseBadSessionId(id, "rewind");
      const chosen = (["code", "conversation", "both"] as const).filter((m) => o[m]);
      if (chosen.length > 1) throw new UsageError(`choose one of --code, --conversation, --both (got ${chosen.map((m) => `--${m}`).join(" and ")})`);
      const mode = chosen[0] ?? "both";
      const n = wholeNumber(o.to);
      if (n === undefined || n < 1) throw new UsageError(`--to must be a prompt number, from 1; got "${o.to}"`);
      const main = program.opts<{ db?: string; config?: string }>();
      const store = await openDb(o.db ?? main.db);
      const out = process.stdout;
      const err = process.stderr;
      try {
        const s = await sessionNamed(store, id);
        id = s.id;
        const { messages } = await store.loadHistory(id);
        let root: string;
        try {
          root = fs.realpathSync(s.workspace);
        } catch {
          throw new CliError(`the session's workspace ${quoteId(s.workspace)} is not there any more; no file can be restored`);
        }
        // a window with the session open may be running a turn that changes those very files
        if (mode !== "conversation") {
          const [{ holderAlive }, { thisProcess }, { openElsewhere }] = await Promise.all([
            import("./session/store/leases.js"),
            import("./session/controller/session-lease.js"),
            import("./session/controller/sentences.js"),
          ]);
          const holder = await store.leaseOf(id);
          if (holder && holder.pid !== process.pid && holderAlive(holder, thisProcess, Date.now())) {
            throw new CliError(`${openElsewhere(id, { ...holder, alive: true })}: its code is not rewound while it may be running a turn; quit it first, or rewind the conversation only (--conversation)`);
          }
        }
        const settings = resolveSettings({}, await readConfig(main.config));
        const { Checkpoints } = await import("./session/checkpoints/checkpoints.js");
        const c = settings.checkpoints;
        const checkpoints = new Checkpoints({
          dir: checkpointDir(),
          limits: { ...(c?.maxFileBytes ? { maxFileBytes: c.maxFileBytes } : {}), ...(c?.maxTotalBytes ? { maxTotalBytes: c.maxTotalBytes } : {}), ...(c?.maxFiles ? { maxFiles: c.maxFiles } : {}) },
          exclude: [store.path],
        });
        const recovered = await checkpoints.recover(root);
        if (recovered) err.write(`albedo-tui: ${forStream(recovered, err)}\n`);
        const r = await import("./session/controller/rewind.js");
        const deps = { store, checkpoints, root };
        let preview;
        try {
          preview = await r.previewRewind(deps, s, messages, n, mode);
        } catch (e) {
          if (e instanceof r.RewindError) throw new CliError(e.message);
          throw e;
        }
        const lines = r.previewLines(preview);
        if (!o.json) for (const l of lines) out.write(forStream(l, out) + "\n");
        if (o.dryRun) {
          if (o.json) out.write(jsonForStream(JSON.stringify({ session: s.id, prompt: preview.prompt, mode, dryRun: true, code: preview.code ?? null, conversation: preview.conversation ?? null }, null, 2), out) + "\n");
          return;
        }
        const done = await r.runRewind(deps, preview);
        if (o.json) {
          const body = { session: s.id, prompt: preview.prompt, mode, restored: done.restored, failed: done.failed, unrestorable: done.unrestorable, fork: done.fork?.id ?? null };
          out.write(jsonForStream(JSON.stringify(body, null, 2), out) + "\n");
        } else {
          for (const l of r.doneLines(done, preview)) out.write(forStream(l, out) + "\n");
          if (done.fork) out.write(forStream(`Continue it with: albedo-tui --resume ${done.fork.id}`, out) + "\n");
        }
        if (done.failed.length > 0) process.exitCode = 1;
      } finally {
        await store.close();
      }
    });

  program
    .command("export <id>")
    .description("print a session as Markdown or JSON")
    .addOption(new Option("--format <format>", "output format").choices(["md", "json"]).default("md"))
    .option("--db <path>", "history database")
    .action(async (id: string, o: { format: "md" | "json"; db?: string }) => {
      refuseBadSessionId(id, "export");
      const store = await openDb(o.db ?? program.opts<{ db?: string }>().db, true);
      try {
        const s = await sessionNamed(store, id);
        id = s.id;
        const { messages, bad } = await store.loadHistory(id);
        const summaries = await store.loadSummaries(id);
        for (const b of bad) process.stderr.write(forStream(`warning: message #${b.seq} could not be read: ${b.error}`, process.stderr) + "\n");
        const { exportJson, exportMarkdown } = await import("./session/controller/export.js");
        // Markdown is inert already (it may be cat-ed later); JSON is escaped only for a terminal
        process.stdout.write(o.format === "json" ? jsonForStream(exportJson(s, messages, summaries), process.stdout) : exportMarkdown(s, messages, summaries));
      } finally {
        await store.close();
      }
    });

  program
    .command("context <id>")
    .description("show what was last sent to the model in a session (read-only)")
    .option("--section <n>", "section number, from 1, as the summary numbers them")
    .option("--page <k>", "page number within the section, from 1 (default 1)")
    .option("--json", "print JSON (its section and page numbers count from 0, as the local API's do)")
    .option("--count-tokens", "ask Anthropic's count_tokens for exact counts of the request, per section (exits 1 when none can be had)")
    .option("--db <path>", "history database")
    .action(async (id: string, o: { section?: string; page?: string; json?: boolean; countTokens?: boolean; db?: string }) => {
      refuseBadSessionId(id, "context");
      const store = await openDb(o.db ?? program.opts<{ db?: string }>().db, true);
      const out = process.stdout;
      try {
        // a new session open on a screen has no row yet: pending, not unknown (open-marks.ts)
        const draft = await (await import("./session/store/open-marks.js")).draftView(store, id);
        if (!draft) id = (await sessionNamed(store, id)).id;
        const { formatView, formatPage, MACHINE_NUMBERING } = await import("./context/format.js");
        const view = draft ?? (await store.inspectorView(id));
        if (o.countTokens && o.section !== undefined) throw new CliError("--count-tokens counts the whole request, section by section: leave out --section");
        if (o.section === undefined) {
          if (o.page !== undefined) throw new CliError(`--page needs --section: say which section's page ${o.page} to show`);
          const main = program.opts<{ config?: string; baseUrl?: string }>();
          const cc = o.countTokens ? await import("./session/controller/context-counts.js") : undefined;
          const exact = cc && (await cc.exactCounts(store, id, view, cc.countCredentials(resolveSettings({ provider: "anthropic", ...(main.baseUrl ? { baseUrl: main.baseUrl } : {}) }, await readConfig(main.config)))));
          const json = { ...(view.state === "current" ? { ...view, numbering: MACHINE_NUMBERING } : view), ...(exact ? { exactCounts: exact } : {}) };
          const text = formatView(view) + (cc && exact ? `\n${cc.formatExactCounts(exact)}` : "");
          out.write((o.json ? jsonForStream(JSON.stringify(json, null, 2), out) : forStream(text, out)) + "\n");
          if (exact && !exact.available) throw new CliError(`no exact counts: ${exact.reason}`);
          return;
        }
        // a person's numbers, from 1, as the summary and the screen show them
        const range = (n: number): string => (n === 1 ? "1" : `1–${n}`);
        const sections = view.state === "current" ? view.sections.length : undefined;
        const section = wholeNumber(o.section);
        if (section === undefined) {
          throw new CliError(`--section must be a section number${sections !== undefined ? ` (sections are ${range(sections)})` : ", from 1"}; got "${o.section}"`);
        }
        const pageArg = o.page ?? "1";
        const page = wholeNumber(pageArg);
        if (page === undefined) throw new CliError(`--page must be a page number, from 1; got "${pageArg}"`);
        if (view.state === "pending") throw new CliError(`the inspector is pending: ${view.reason}`);
        const summary = view.sections[section - 1];
        if (section < 1 || !summary) throw new CliError(`there is no section ${section}: sections are ${range(view.sections.length)}, as the summary numbers them`);
        if (page < 1 || page > summary.pages) {
          throw new CliError(`there is no page ${page} in section ${section} (${summary.source}): its pages are ${range(summary.pages)}`);
        }
        const p = await store.capturePage(id, summary.index, page - 1);
        // the summary was read a moment ago; a capture saved since may have changed the pages
        if (!p) throw new CliError(`section ${section}, page ${page} is no longer there: a new request was captured meanwhile; run the command again`);
        const pageOut = o.json ? jsonForStream(JSON.stringify({ ...p, numbering: MACHINE_NUMBERING }, null, 2), out) : forStream(formatPage(p, summary), out);
        out.write(pageOut + "\n");
      } finally {
        await store.close();
      }
    });
  return program;
}

/**
 * A reader that stops reading (`albedo-tui sessions | head -1`) is a normal end: exit 0 at
 * once, no stack trace. Only EPIPE: any other write failure is a real error. Not on a
 * terminal: there the screen owns its output's failures (a hung-up terminal must first let
 * the store write what had arrived).
 */
function endQuietlyOnClosedStdout(): void {
  if (process.stdout.isTTY) return;
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
}

async function run(argv: string[]): Promise<void> {
  endQuietlyOnClosedStdout();
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    const code = e instanceof UsageError ? 2 : e instanceof CliError ? e.code : 1;
    // ConfigError, UsageError and CliError are written for people: their message is the line
    const msg = messageOf(e);
    // a message can quote a file name or stored text: inert on a terminal
    process.stderr.write(`albedo-tui: ${forStream(msg, process.stderr)}\n`);
    process.exitCode = code;
  }
}

// not awaited at the top: the bundle is a CommonJS script (src/launch/code-cache.ts); run() catches all
void run(process.argv);
