// Hints that match the moment, the pane asked for while the session opens, and where the local
// API is. The real src/ui in-process, painting into a headless xterm,
// driven by a scripted controller; what is read is the screen a person would see.
import { afterEach, describe, expect, it } from "vitest";
import { startTui, type Tui } from "../../src/ui/app.js";
import { defaultKeymap } from "../../src/ui/bindings.js";
import { apiLines, curlExample, helpLines } from "../../src/ui/run-command.js";
import { activeFlash } from "../../src/ui/status.js";
import { lineText } from "../../src/ui/style.js";
import { API_ROUTES } from "../../src/context/api/routes.js";
import { KEYS } from "../helpers/pty.js";
import { asController, HeadlessTerminal, ScriptedController } from "../helpers/screen.js";

const open: Tui[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

async function screen(cols = 100, rows = 30): Promise<{ term: HeadlessTerminal; c: ScriptedController }> {
  const term = new HeadlessTerminal(cols, rows);
  const tui = startTui({ noColor: false, terminal: term.terminal() });
  open.push(tui);
  const c = new ScriptedController();
  void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
  await term.waitFor("Type a request");
  return { term, c };
}

describe("hints end with the turn they speak of", () => {
  it("'interrupting…' goes when the turn ends, not seconds later over an idle screen", async () => {
    const { term, c } = await screen();
    term.send("go");
    await term.waitFor("› go");
    term.send(KEYS.enter);
    c.emit({ type: "state", state: "streaming" });
    await term.waitFor(/ waiting for anthropic ·/);
    term.send(KEYS.escape);
    await term.waitFor("interrupting… what arrived is kept");
    expect(c.interrupts).toBe(1);
    c.finish();
    await term.waitFor(/^ idle · /m);
    // the flash ends with the turn: it must not say "interrupting…" while idle
    expect(term.screenText()).not.toContain("interrupting");
  });

  it("Enter during a turn queues the prompt: the flash goes when the turn ends, and the prompt is sent then", async () => {
    const { term, c } = await screen();
    term.send("first");
    await term.waitFor("› first");
    term.send(KEYS.enter);
    c.emit({ type: "state", state: "streaming" });
    await term.waitFor(/ waiting for anthropic ·/);
    term.send("second");
    await term.waitFor("› second");
    term.send(KEYS.enter);
    await term.waitFor("queued: sent when the turn ends");
    await term.waitFor("queued 1 second");
    expect(c.submitted.map((x) => x.text)).toEqual(["first"]);
    c.finish();
    await term.waitForGone("queued 1 second");
    expect(c.submitted.map((x) => x.text)).toEqual(["first", "second"]);
    // the queued prompt's own turn ends: the flash about the queue goes with it
    c.finish();
    await term.waitFor(/^ idle · /m);
    expect(term.screenText()).not.toContain("queued: sent when the turn ends");
  });

  it("a flash about the turn is shown only while a turn runs; others keep their time", () => {
    const f = { text: "x", style: "warn" as const, until: 2000 };
    expect(activeFlash({ ...f, turn: true }, 1000, true)).toBeDefined();
    expect(activeFlash({ ...f, turn: true }, 1000, false)).toBeUndefined();
    expect(activeFlash(f, 1000, false)).toBeDefined();
    expect(activeFlash(f, 2000, false)).toBeUndefined();
  });
});

describe("the context pane asked for while the session opens", () => {
  it("Ctrl-O on the starting screen says it is pending, and the pane opens with the session", async () => {
    const term = new HeadlessTerminal(120, 30);
    const tui = startTui({ noColor: false, terminal: term.terminal() });
    open.push(tui);
    await term.waitFor("starting…");
    term.send(KEYS.ctrl("o"));
    // the key answers, with why the pane is not open yet
    await term.waitFor("the context pane opens once the session is open");
    const c = new ScriptedController();
    void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
    // the scripted session has sent nothing yet: the pane says so
    await term.waitFor("pending: nothing sent yet");
    // it is the real pane: Ctrl-O closes it
    term.send(KEYS.ctrl("o"));
    await term.waitForGone("pending: nothing sent yet");
  });

  it("Ctrl-O twice while opening changes the mind: the pane stays closed", async () => {
    const term = new HeadlessTerminal(120, 30);
    const tui = startTui({ noColor: false, terminal: term.terminal() });
    open.push(tui);
    await term.waitFor("starting…");
    term.send(KEYS.ctrl("o"));
    await term.waitFor("opens once the session is open");
    term.send(KEYS.ctrl("o"));
    await term.waitFor("the context pane stays closed");
    const c = new ScriptedController();
    void tui.attach(asController(c), { keymap: defaultKeymap(), keymapWarnings: [] });
    await term.waitFor("Type a request");
    expect(term.screenText()).not.toContain("pending: nothing sent yet");
  });
});

describe("where the local API is", () => {
  const api = { url: "http://127.0.0.1:43210", tokenFile: "/home/me/.local/state/albedo/api-token-43210" };
  const text = (ls: ReturnType<typeof apiLines>): string => ls.map(lineText).join("\n");

  it("/api gives the address, the token file, every route and an example for this session", () => {
    const t = text(apiLines(api, "sess-1"));
    expect(t).toContain("address  http://127.0.0.1:43210");
    expect(t).toContain("token    /home/me/.local/state/albedo/api-token-43210");
    for (const r of API_ROUTES) expect(t).toContain(r.path);
    expect(t).toContain('curl -H "Authorization: Bearer $(cat /home/me/.local/state/albedo/api-token-43210)" 127.0.0.1:43210/sessions/sess-1/context');
  });

  it("/api's example is a line of its own from the first column, short, with a two-command form that fits 80 columns", () => {
    const lines = apiLines(api, "3f9c2a1b7d0e").map(lineText);
    const one = lines.find((l) => l.startsWith("curl -H"));
    expect(one).toBe('curl -H "Authorization: Bearer $(cat /home/me/.local/state/albedo/api-token-43210)" 127.0.0.1:43210/sessions/3f9c2a1b/context');
    const ex = curlExample(api, "3f9c2a1b7d0e", "/home/me");
    expect(ex.oneLine).toBe('curl -H "Authorization: Bearer $(cat ~/.local/state/albedo/api-token-43210)" 127.0.0.1:43210/sessions/3f9c2a1b/context');
    expect(ex.twoLines).toEqual(["T=$(cat ~/.local/state/albedo/api-token-43210)", 'curl -H "Authorization: Bearer $T" 127.0.0.1:43210/sessions/3f9c2a1b/context']);
    for (const l of ex.twoLines) expect(l.length).toBeLessThanOrEqual(78);
    expect(lines).toContain(ex.twoLines[0].replace("~", "/home/me"));
    // a path with a space or a quote is quoted for the shell
    expect(curlExample({ ...api, tokenFile: "/home/me/it's here/t" }, "x", "/home/me").twoLines[0]).toBe("T=$(cat '/home/me/it'\\''s here/t')");
  });

  it("/api without --api says how to turn it on", () => {
    expect(text(apiLines(undefined, "sess-1"))).toContain("off: start albedo-tui with --api");
  });

  it("/help lists /api, and the API itself when it is on", () => {
    const km = defaultKeymap();
    const on = helpLines(km, api, "sess-1").map(lineText).join("\n");
    expect(on).toContain("/api");
    expect(on).toContain("address  http://127.0.0.1:43210");
    const off = helpLines(km).map(lineText).join("\n");
    expect(off).toContain("/api");
    expect(off).not.toContain("Local API");
  });

  it("the screen shows the address at start and on /api", async () => {
    const { term, c } = await (async () => {
      const t = new HeadlessTerminal(160, 40);
      const tui = startTui({ noColor: false, terminal: t.terminal() });
      open.push(tui);
      const sc = new ScriptedController();
      sc.infoOver = { api };
      void tui.attach(asController(sc), { keymap: defaultKeymap(), keymapWarnings: [] });
      await t.waitFor("Type a request");
      return { term: t, c: sc };
    })();
    expect(term.screenText()).toContain(`Local API on ${api.url} (token in ${api.tokenFile}); /api shows its routes.`);
    term.send("/api");
    await term.waitFor("› /api");
    term.send(KEYS.enter);
    await term.waitFor(`/sessions/${c.session().id.slice(0, 8)}/context`);
    expect(term.screenText()).toContain("address  http://127.0.0.1:43210");
  });
});
