// What Enter does with the prompt: a slash command runs here, anything else goes to the
// controller as a prompt. Loaded with the session (nothing here is needed before it is open).
// The screen hands in what a command may touch (ScreenHandle); a command's failure becomes an
// error line in the transcript, never a throw.
import os from "node:os";
import { API_ROUTES } from "../context/api/routes.js";
import type { AppInfo, Controller } from "../session/controller/types.js";
import type { ImageBlock, SessionInfo } from "../record/types.js";
import { assertNever } from "../record/types.js";
import { ACTION_HELP, ACTIONS, keyLabel, prettyKey, type Action, type Keymap } from "./bindings.js";
import { COMMANDS, parseInput, unquotePath, type CommandName } from "./commands.js";
import { formatTodoList, latestTodoList, todoSummary } from "../tools/todo-list.js";
import { inert, inertLine } from "./inert.js";
import type { InputEditor, PromptHistory } from "./input.js";
import type { Line, Seg, StyleName } from "./style.js";
import { formatBytes, textWidth } from "./text.js";
import { LISTING_MODELS } from "./status.js";
import type { Transcript } from "./transcript.js";
import { buildModelPicker, type ModelPicker } from "./model-list.js";
import { costLines } from "./cost-lines.js";
import type { PromptChoice } from "../session/controller/rewind.js";
import { parseBang, runBang, shellsCommand } from "./shells-box.js";
import { permissionsCommand } from "./permissions-command.js";
import { mentionedPaths } from "./mention-word.js";
import { lastCodeBlock, messageText, osc52, toolCallText } from "./copy.js";
import { asTyped, type PromptQueue } from "./queue.js";

// the screen draws the model list and the rewind box from here: this module is loaded with the
// session, as the boxes are
export { modelsBox } from "./model-list.js";
export { rewindBox } from "./rewind-box.js";
export { chooseRewind, toggleRewindDiffs } from "./rewind-flow.js";

/** the parts of the screen a command may use */
export interface ScreenHandle {
  controller: Controller;
  transcript: Transcript;
  editor: InputEditor;
  history: PromptHistory;
  km: Keymap;
  /** images that go with the next prompt */
  attachments: ImageBlock[];
  /** prompts typed during a turn, sent as it ends (queue.ts) */
  queue: PromptQueue;
  /** a message in the hint line; `turn`: it speaks of the running turn, and goes when the turn ends */
  flash(text: string, style?: StyleName, turn?: boolean): void;
  /** "<what> failed: <why>" in the transcript */
  fail(what: string, e: unknown): void;
  render(): void;
  /** opens the session picker, unless another box is up */
  pickSession(list: SessionInfo[]): void;
  /** opens the model list, unless another box is up */
  pickModel(picker: ModelPicker): void;
  /** opens the rewind box at its first step, on prompt `index` (from 0), unless another box is up */
  pickRewind(prompts: PromptChoice[], index: number): void;
  toggleContext(): void;
  repaintAll(): void;
  /** bytes for the terminal itself, outside the frame (OSC 52) */
  writeRaw(bytes: string): void;
  quit(code: number): void;
}

/**
 * Enter in the prompt: runs the command, or sends the prompt and what is attached. During a
 * turn the prompt is queued, or with `steer` sent into the turn (steered in at its next model
 * call; what the turn does not take comes back at the head of the queue).
 */
export function submitPrompt(s: ScreenHandle, steer = false): void {
  const raw = s.editor.value();
  const bang = parseBang(raw);
  if (bang) return runBang(s, raw, bang);
  const parsed = parseInput(raw.trimEnd());
  switch (parsed.kind) {
    case "command":
      // /init is a prompt: the controller expands it (workflow.ts), and its edit asks as any edit does
      if (parsed.name === "init") break;
      s.history.add(raw.trim());
      s.editor.clear();
      runCommand(s, parsed.name, parsed.arg);
      return;
    case "unknown":
      // a custom command (the workspace's or the config folder's): the controller expands it
      if (s.controller.workflow?.isCommand(parsed.name)) break;
      s.flash(`unknown command /${inertLine(parsed.name)} · /help lists them`, "err");
      return;
    case "prompt":
      break;
    default:
      assertNever(parsed, "input");
  }
  const text = (parsed.kind === "prompt" ? parsed.text : raw).trimEnd();
  if (!text.trim() && s.attachments.length === 0) return;
  // "//text" sends "/text" as written; ↑, the queue and a take-back keep the "//"
  const literal = raw.trimStart().startsWith("//");
  const typed = asTyped({ text, literal });
  const c = s.controller;
  if (c.busy()) {
    if (c.info().keyProblem || c.readOnly()) {
      s.flash(`a turn is running · ${keyLabel(s.km, "turn.interrupt")} interrupts it; your text stays here`, "warn", true);
      return;
    }
    s.history.add(typed);
    s.editor.clear();
    const images = s.attachments.splice(0);
    if (steer && c.steer && images.length === 0) {
      s.flash("sent into the turn: it joins at the next model call", "ok", true);
      s.controller.alongside?.remember(typed);
      c.steer(text).then(
        (taken) => {
          if (taken) return;
          // the turn ended first: it goes out next, ahead of what was queued (turnEnded, told
          // of the turn's end just before, sends it or gives it back); with no turn's end to
          // come (none was running), it goes once nothing runs
          s.queue.add({ text, images: [], literal }, true);
          setImmediate(() => afterTurn(s));
          s.render();
        },
        (e: unknown) => s.fail("steering", e),
      );
      return;
    }
    s.queue.add({ text, images, literal });
    s.flash(`queued: sent when the turn ends · ${keyLabel(s.km, "queue.edit")} takes it back`, "ok", true);
    return;
  }
  if (c.info().keyProblem) {
    // nothing can be sent: keep what was typed rather than lose it to an error line
    // the full sentence is in the transcript and the status line already
    s.flash("no API key: see above · your text stays here", "err");
    return;
  }
  s.history.add(typed, s.editor.value().trimEnd() === typed ? s.editor.shape() : undefined);
  s.editor.clear();
  const images = s.attachments.splice(0);
  send(s, text, images, literal);
}

function send(s: ScreenHandle, text: string, images: ImageBlock[], literal = false): void {
  const typed = asTyped({ text, literal });
  s.transcript.bottom();
  // ↑ finds it in the next session of this workspace too
  s.controller.alongside?.remember(typed);
  // the files it mentions (@path) join it as blocks of their own, read as it is sent
  const files = mentionedPaths(text).length > 0 ? import("./mentions.js").then((m) => m.mentionBlocks(s.controller.info().workspace, text)) : Promise.resolve({ blocks: [], notes: [] });
  files
    .then(({ blocks, notes }) => {
      for (const n of notes) s.transcript.notice("warning", n);
      // "//text" sends "/text" as written, never as a command
      return s.controller.submit(text, images, { literal, files: blocks });
    })
    .then(
    (r) => {
      // interrupted while it waited for the turn's code: nothing went, so the text comes back
      // (unless something new has been typed meanwhile: then ↑ has it) and so do its images,
      // ahead of any attached since
      if (r.sent) return;
      if (s.editor.isEmpty()) s.editor.recall(typed, s.history.shapeOf(typed));
      s.attachments.unshift(...images);
      returnQueue(s);
      s.render();
    },
    (e: unknown) => s.fail("sending", e),
  );
}

/** the session said a turn ended (turn_end): what was queued goes next, or back to the prompt */
export function turnEnded(s: ScreenHandle, how: { ok: boolean }): void {
  if (how.ok) afterTurn(s);
  else returnQueue(s);
  s.render();
}

/** a turn ended well: the next queued message goes out, if nothing else runs */
function afterTurn(s: ScreenHandle): void {
  // a steer given back may land while the next turn already runs: it waits for that one
  if (s.controller.busy()) return;
  const next = s.queue.next();
  if (next) send(s, next.text, next.images, next.literal);
}

/**
 * A turn was interrupted or failed: what was queued behind it comes back to the prompt, in
 * order, before what is typed there now, and its images to the attachments.
 */
function returnQueue(s: ScreenHandle): void {
  const back = s.queue.drain();
  if (back.length === 0) return;
  const typed = s.editor.value();
  s.editor.set([...back.map((q) => asTyped(q)), ...(typed.trim() ? [typed] : [])].join("\n\n"));
  s.attachments.unshift(...back.flatMap((q) => q.images));
  s.flash(`${back.length} queued message${back.length > 1 ? "s" : ""} back in the prompt: the turn did not end well`, "warn");
}

/** queue.edit / queue.remove: the last queued message back into the prompt, or dropped */
export function queueOp(s: ScreenHandle, op: "edit" | "remove"): void {
  const last = s.queue.takeLast();
  if (!last) return;
  if (op === "remove") {
    s.flash("dropped the last queued message (↑ still has it)", "warn");
    return;
  }
  const typed = s.editor.value();
  s.editor.set(typed.trim() ? `${asTyped(last)}\n\n${typed}` : asTyped(last));
  s.attachments.unshift(...last.images);
  s.flash(`back in the prompt · ${keyLabel(s.km, "input.submit")} queues it again`);
}

function runCommand(s: ScreenHandle, name: CommandName, arg: string): void {
  const c = s.controller;
  const info = (line: string): void => {
    s.transcript.notice("info", line);
    s.render();
  };
  const guard = (what: string, p: Promise<unknown>): void => {
    p.catch((e: unknown) => s.fail(what, e));
  };
  switch (name) {
    case "help":
      s.transcript.lines(helpLines(s.km, c.info().api, c.session().id, c.workflow?.commands()));
      s.transcript.bottom();
      return;
    case "cost":
      s.transcript.lines(costLines(c.cost()));
      s.transcript.bottom();
      return;
    case "api":
      s.transcript.lines(apiLines(c.info().api, c.session().id));
      s.transcript.bottom();
      return;
    case "new":
      guard("/new", c.newSession().then(() => s.flash("new session", "ok")));
      return;
    case "sessions":
      // an id, or its start as the screen shows it: switched to at once
      if (arg.trim()) {
        guard("/sessions", c.switchSession(arg.trim()).then(() => s.flash(`switched to session ${c.session().id.slice(0, 8)}`, "ok")));
        return;
      }
      guard(
        "/sessions",
        c.listSessions().then((list) => s.pickSession(list)),
      );
      return;
    case "model":
      if (!arg.trim()) {
        // the list comes once the servers have answered (or not); typing meanwhile goes to the prompt
        s.flash(LISTING_MODELS);
        guard("/model", c.listModels().then((m) => s.pickModel(buildModelPicker(m))));
        return;
      }
      guard("/model", c.setModel(arg).then(info));
      return;
    case "image": {
      if (!arg) {
        info(
          s.attachments.length
            ? `attached: ${s.attachments.map((a) => `${a.mediaType} ${formatBytes(a.bytes)}`).join(", ")} (sent with your next prompt; /image clear drops them)`
            : "usage: /image PATH (the image goes with your next prompt)",
        );
        return;
      }
      if (arg === "clear") {
        s.attachments.splice(0);
        info("attachments cleared");
        return;
      }
      const file = unquotePath(arg, os.homedir());
      guard(
        "/image",
        c.loadImage(file).then((img) => {
          s.attachments.push(img);
          const dims = img.width && img.height ? ` ${img.width}×${img.height}` : "";
          info(`attached ${inertLine(file)} (${img.mediaType}${dims}, ${formatBytes(img.bytes)}); it goes with your next prompt`);
          if (!c.info().vision) s.transcript.notice("warning", `${c.info().model} is not known to see images: it will get a note that an image was attached, not the image.`);
        }),
      );
      return;
    }
    case "reload":
      guard("/reload", c.reload().then(info));
      return;
    case "fork":
      if (c.busy()) {
        s.flash("a turn is running; fork after it ends", "warn", true);
        return;
      }
      guard("/fork", c.fork().then(info));
      return;
    case "compact":
      if (c.busy()) {
        s.flash("a turn is running; compact after it ends", "warn", true);
        return;
      }
      info("compacting…");
      guard("/compact", c.compact().then(info));
      return;
    case "context":
      s.toggleContext();
      return;
    case "export": {
      const fmt = arg.toLowerCase() || "md";
      if (fmt !== "md" && fmt !== "json") {
        s.flash(`/export takes md or json (got "${inertLine(arg)}")`, "err");
        return;
      }
      guard("/export", c.exportSession(fmt).then((p) => info(`exported to ${p}`)));
      return;
    }
    case "mcp": {
      const m = c.mcp;
      const sub = arg.trim().toLowerCase();
      if (!m) info("MCP servers are not available in this screen.");
      else if (sub === "") {
        // the listing is escaped already and shows values exactly: inert, but no spaces folded
        s.transcript.lines(m.describe().split("\n").map((t, i): Line => [i === 0 ? { t: inert(t), s: "heading" } : { t: inert(t) }]));
        s.transcript.bottom();
        s.render();
      } else if (sub === "approve") guard("/mcp approve", m.approve().then(info));
      else s.flash(`/mcp takes nothing (the list) or approve (got "${inertLine(arg)}")`, "err");
      return;
    }
    case "rewind":
      openRewind(s, arg);
      return;
    case "shells":
      shellsCommand(s, arg);
      return;
    case "permissions":
      permissionsCommand(s, arg);
      return;
    case "copy":
      copyCommand(s, arg);
      return;
    case "skills":
    case "hooks":
    case "todo":
      workflowCommand(s, name, arg);
      return;
    case "init":
      // sent as a prompt by submitPrompt, never run here
      return;
    case "clear-screen":
      s.transcript.clearView();
      s.repaintAll();
      return;
    case "quit":
      s.quit(0);
      return;
    default:
      assertNever(name, "command");
  }
}

/** /copy [code]: the selected tool call or message, else the last answer, to the clipboard */
function copyCommand(s: ScreenHandle, arg: string): void {
  const want = arg.trim().toLowerCase();
  if (want !== "" && want !== "code") {
    s.flash(`/copy takes nothing or code (got "${inertLine(arg)}")`, "err");
    return;
  }
  const src = s.transcript.copySource();
  if (!src) {
    s.flash("nothing to copy yet: no answer in this session", "warn");
    return;
  }
  let text = "tool" in src ? toolCallText(src.tool, src.state) : messageText(src.msg);
  let what = "tool" in src ? "the tool call" : src.msg.role === "assistant" ? "the answer" : "the message";
  if (want === "code") {
    const code = lastCodeBlock(text);
    if (code === undefined) {
      s.flash(`${what} has no code block`, "warn");
      return;
    }
    text = code;
    what = `the last code block of ${what}`;
  }
  const { bytes, cut } = osc52(text, process.env.TMUX !== undefined && process.env.TMUX !== "");
  s.writeRaw(bytes);
  const size = formatBytes(Buffer.byteLength(text));
  s.flash(cut ? `copied the start of ${what} (${size} is more than a terminal takes at once)` : `copied ${what} (${size}) · the terminal must allow OSC 52 (README)`, cut ? "warn" : "ok");
}

/** the task list's key: /todo */
export function showTasks(s: ScreenHandle): void {
  workflowCommand(s, "todo", "");
}

/** /skills, /hooks [approve], /todo: the workflow's listings (session/controller/workflow.ts) */
function workflowCommand(s: ScreenHandle, name: "skills" | "hooks" | "todo", arg: string): void {
  const w = s.controller.workflow;
  const show = (text: string): void => {
    // the listings are escaped already: inert, no spaces folded
    s.transcript.lines(text.split("\n").map((t, i): Line => [i === 0 ? { t: inert(t), s: "heading" } : { t: inert(t) }]));
    s.transcript.bottom();
    s.render();
  };
  if (name === "todo") {
    const items = latestTodoList(s.controller.history());
    show(items ? `Task list (${todoSummary(items)})\n${formatTodoList(items)}` : "Task list\nThe model has kept no task list in this session (it keeps one with the todo tool).");
    return;
  }
  if (!w) {
    show(`/${name}\nnot available in this screen.`);
    return;
  }
  if (name === "skills") show(w.describeSkills());
  else if (arg.trim() === "") show(w.describeHooks());
  else if (arg.trim().toLowerCase() === "approve") show(w.approveHooks());
  else s.flash(`/hooks takes nothing (the list) or approve (got "${inertLine(arg)}")`, "err");
}

/** /rewind [N], and Esc Esc on an empty prompt: the rewind box, on the last prompt (or N). */
export function openRewind(s: ScreenHandle, arg = ""): void {
  const c = s.controller;
  const r = c.rewind;
  if (!r) {
    s.transcript.notice("info", "Rewind is not available in this screen.");
    s.render();
    return;
  }
  if (c.busy()) {
    s.flash(`a turn is running · ${keyLabel(s.km, "turn.interrupt")} interrupts it; rewind after it ends`, "warn", true);
    return;
  }
  const want = arg.trim();
  if (want !== "" && !/^[0-9]{1,9}$/.test(want)) {
    s.flash(`/rewind takes a prompt number, from 1 (got "${inertLine(arg)}")`, "err");
    return;
  }
  r.prompts().then(
    (prompts) => {
      if (prompts.length === 0) {
        s.transcript.notice("info", "Nothing to rewind to: this session has no prompt yet.");
        s.render();
        return;
      }
      const n = want === "" ? prompts.length : Number(want);
      if (n < 1 || n > prompts.length) {
        s.flash(`this session has prompts 1${prompts.length > 1 ? `–${prompts.length}` : ""} (got ${n})`, "err");
        return;
      }
      s.pickRewind(prompts, n - 1);
    },
    (e: unknown) => s.fail("/rewind", e),
  );
}

/**
 * /api: where the local API listens, its token file and its routes. A line on stderr just
 * before the screen opens would be covered by it, and the status line has the address only
 * on a very wide terminal.
 */
export function apiLines(api: AppInfo["api"], sessionId: string): Line[] {
  if (!api) {
    return [
      [{ t: "Local API", s: "heading" }],
      [{ t: "off: start albedo-tui with --api (and --api-port N for a fixed port) to serve it on 127.0.0.1" }],
    ];
  }
  const label = (t: string): Seg => ({ t: t.padEnd(9), s: "dim" });
  const pathW = Math.max(...API_ROUTES.map((r) => textWidth(r.path)));
  const out: Line[] = [
    [{ t: "Local API", s: "heading" }, { t: " (read-only: GET only, on 127.0.0.1)", s: "dim" }],
    [label("address"), { t: inertLine(api.url), s: "key" }],
    [label("token"), { t: inertLine(api.tokenFile) }, { t: " (mode 0600; send it as Authorization: Bearer TOKEN)", s: "dim" }],
  ];
  API_ROUTES.forEach((r, i) => out.push([label(i === 0 ? "routes" : ""), { t: r.path.padEnd(pathW + 2), s: "key" }, { t: r.what, s: "dim" }]));
  out.push([label("session"), { t: `this one is ${sessionId}` }]);
  // the command on a line of its own, from the first column and as short as it goes (~ for
  // the home folder, the id's start): a line the pane must wrap pastes as two commands
  const ex = curlExample(api, sessionId);
  out.push([label("example"), { t: "one command; a screen that wraps it breaks the copy: the two lines after it are each whole", s: "dim" }]);
  out.push([{ t: ex.oneLine }]);
  for (const l of ex.twoLines) out.push([{ t: l }]);
  return out;
}

/**
 * The example request as one command, from the first column and as short as it goes ("~" for
 * the home folder, the id's start, no scheme), and as two commands that each fit 80 columns:
 * a line the pane wraps pastes as two broken commands.
 */
export function curlExample(api: NonNullable<AppInfo["api"]>, sessionId: string, home = process.env["HOME"]): { oneLine: string; twoLines: [string, string] } {
  const plain = !/[\s"'$`\\]/.test(api.tokenFile);
  const file = home && home !== "/" && plain && api.tokenFile.startsWith(`${home}/`) ? `~${api.tokenFile.slice(home.length)}` : api.tokenFile;
  const id = sessionId.length > 8 ? sessionId.slice(0, 8) : sessionId;
  const where = `${inertLine(api.url.replace(/^http:\/\//, ""))}/sessions/${id}/context`;
  // a path a shell would split or expand goes in single quotes
  const cat = `$(cat ${inertLine(plain ? file : `'${file.replace(/'/g, "'\\''")}'`)})`;
  return { oneLine: `curl -H "Authorization: Bearer ${cat}" ${where}`, twoLines: [`T=${cat}`, `curl -H "Authorization: Bearer $T" ${where}`] };
}

/** /help: the commands, the local API when it is on, then every action with its keys in the keymap in force */
export function helpLines(km: Keymap, api?: AppInfo["api"], sessionId?: string, custom?: ReadonlyArray<{ name: string; args: string; help: string }>): Line[] {
  const out: Line[] = [[{ t: "Commands", s: "heading" }]];
  const cmdW = Math.max(...COMMANDS.map((c) => textWidth(`/${c.name} ${c.args}`)));
  for (const c of COMMANDS) {
    const left = `/${c.name}${c.args ? ` ${c.args}` : ""}`;
    out.push([{ t: left.padEnd(cmdW + 2), s: "key" }, { t: c.help }]);
  }
  out.push([{ t: "//text".padEnd(cmdW + 2), s: "key" }, { t: "send a message that starts with /" }]);
  out.push([]);
  if (api) {
    out.push(...apiLines(api, sessionId ?? "ID"));
    out.push([]);
  }
  out.push([{ t: `Keys (${km.name} keymap; override in the config's "keys")`, s: "heading" }]);
  const keys = (a: Action): string => km.bindings[a].map(prettyKey).join(", ");
  const keyW = Math.min(24, Math.max(...ACTIONS.map((a) => textWidth(keys(a)))));
  for (const a of ACTIONS) out.push([{ t: keys(a).padEnd(keyW + 2), s: "key" }, { t: ACTION_HELP[a] }, { t: `  ${a}`, s: "dim" }]);
  out.push([{ t: "In the prompt: ←/→ ^A/^E ^W ^K ^U Alt-←/→ edit; Esc interrupts a running turn.", s: "dim" }]);
  // the workspace's and the config folder's own commands, last, where /help leaves the view
  // (their text comes from files: inert)
  const own = (custom ?? []).filter((c) => !COMMANDS.some((b) => b.name === c.name));
  if (own.length > 0) {
    out.push([]);
    out.push([{ t: "Custom commands (.claude/commands, .agents/commands, .albedo/commands, the config folder's commands/)", s: "heading" }]);
    for (const c of own) out.push([{ t: inertLine(`/${c.name}${c.args ? ` ${c.args}` : ""}`).padEnd(cmdW + 2), s: "key" }, { t: inertLine(c.help) }]);
  }
  return out;
}
