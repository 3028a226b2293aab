// What Enter does with the prompt: a slash command runs here, anything else goes to the
// controller as a prompt. Loaded with the session (nothing here is needed before it is open).
// The screen hands in what a command may touch (ScreenHandle); a command's failure becomes an
// error line in the transcript, never a throw.
import os from "node:os";
import { API_ROUTES } from "../context/api/routes.js";
import type { AppInfo, Controller } from "../session/controller/types.js";
import type { ImageBlock, Session } from "../record/types.js";
import { assertNever } from "../record/types.js";
import { ACTION_HELP, ACTIONS, keyLabel, prettyKey, type Action, type Keymap } from "./bindings.js";
import { COMMANDS, parseInput, unquotePath, type CommandName } from "./commands.js";
import { inert, inertLine } from "./inert.js";
import type { InputEditor, PromptHistory } from "./input.js";
import type { Line, Seg, StyleName } from "./style.js";
import { formatBytes, textWidth } from "./text.js";
import type { Transcript } from "./transcript.js";
import { buildModelPicker, type ModelPicker } from "./model-list.js";
import type { PromptChoice } from "../session/controller/rewind.js";
import { parseBang, runBang, shellsCommand } from "./shells-box.js";
import { mentionedPaths } from "./mention-word.js";
import { lastCodeBlock, messageText, osc52, toolCallText } from "./copy.js";

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
  /** a message in the hint line; `turn`: it speaks of the running turn, and goes when the turn ends */
  flash(text: string, style?: StyleName, turn?: boolean): void;
  /** "<what> failed: <why>" in the transcript */
  fail(what: string, e: unknown): void;
  render(): void;
  /** opens the session picker, unless another box is up */
  pickSession(list: Session[]): void;
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

/** Enter in the prompt: runs the command, or sends the prompt and what is attached */
export function submitPrompt(s: ScreenHandle): void {
  const raw = s.editor.value();
  const bang = parseBang(raw);
  if (bang) return runBang(s, raw, bang);
  const parsed = parseInput(raw.trimEnd());
  switch (parsed.kind) {
    case "command":
      s.history.add(raw.trim());
      s.editor.clear();
      runCommand(s, parsed.name, parsed.arg);
      return;
    case "unknown":
      s.flash(`unknown command /${inertLine(parsed.name)} · /help lists them`, "err");
      return;
    case "prompt":
      break;
    default:
      assertNever(parsed, "input");
  }
  const text = parsed.text.trimEnd();
  if (!text.trim() && s.attachments.length === 0) return;
  const c = s.controller;
  if (c.busy()) {
    s.flash(`a turn is running · ${keyLabel(s.km, "turn.interrupt")} interrupts it; your text stays here`, "warn", true);
    return;
  }
  if (c.info().keyProblem) {
    // nothing can be sent: keep what was typed rather than lose it to an error line
    // the full sentence is in the transcript and the status line already
    s.flash("no API key: see above · your text stays here", "err");
    return;
  }
  s.history.add(text);
  s.editor.clear();
  const images = s.attachments.splice(0);
  s.transcript.bottom();
  // the files it mentions (@path) join it as blocks of their own, read as it is sent
  const files = mentionedPaths(text).length > 0 ? import("./mentions.js").then((m) => m.mentionBlocks(c.info().workspace, text)) : Promise.resolve({ blocks: [], notes: [] });
  files
    .then(({ blocks, notes }) => {
      for (const n of notes) s.transcript.notice("warning", n);
      return c.submit(text, images, blocks);
    })
    .then(
    (r) => {
      // interrupted while it waited for the turn's code: nothing went, so the text comes back
      // (unless something new has been typed meanwhile: then ↑ has it) and so do its images,
      // ahead of any attached since
      if (r.sent) return;
      if (s.editor.isEmpty()) s.editor.set(text);
      s.attachments.unshift(...images);
      s.render();
    },
    (e: unknown) => s.fail("sending", e),
  );
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
      s.transcript.lines(helpLines(s.km, c.info().api, c.session().id));
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
      guard(
        "/sessions",
        c.listSessions().then((list) => s.pickSession(list)),
      );
      return;
    case "model":
      if (!arg.trim()) {
        // the list comes once the servers have answered (or not); typing meanwhile goes to the prompt
        s.flash("listing models…");
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
    case "copy":
      copyCommand(s, arg);
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
  out.push([label("example"), { t: `curl -s -H "Authorization: Bearer $(cat ${inertLine(api.tokenFile)})" ${inertLine(api.url)}/sessions/${sessionId}/context` }]);
  return out;
}

/** /help: the commands, the local API when it is on, then every action with its keys in the keymap in force */
export function helpLines(km: Keymap, api?: AppInfo["api"], sessionId?: string): Line[] {
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
  return out;
}
