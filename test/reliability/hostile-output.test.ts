// A command whose output is an attack on the terminal: cursor moves, screen clears, titles,
// hyperlinks, clipboard writes, device control strings, bells, 8-bit controls and broken
// UTF-8. On screen it must be inert text; in the bytes written to the terminal none of the
// tool's sequences may appear; and the record keeps the output exactly as bash captured it.
//
// Every payload carries a marker of its own (PWNED-…, a row number no 40-row screen uses),
// so the app's own escape sequences are never mistaken for the tool's.
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs/promises";
import path from "node:path";
import xterm from "@xterm/headless";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { CLI, makeHome, runCli, type Home } from "../helpers/cli.js";
import { KEYS, spawnPty, type PtySession } from "../helpers/pty.js";
import { anthropicArgs, readRecord, removeHomes, secretHits, Tally, writeFigures } from "./lib.js";

const { Terminal } = xterm;
const KEY = "sk-ant-reliability-HOSTILE-c0ffee";
const ESC = "\x1b";
const BEL = "\x07";
const ST = `${ESC}\\`;

/** One line per family of attack; the visible words between them must survive as text. */
const LINES: Buffer[] = [
  Buffer.from(`BEGIN-HOSTILE ${ESC}[97;3HCURSOR-MOVED ${ESC}[37AUP-MOVED ${ESC}[2J${ESC}[3JCLEARED ${ESC}cRESET ${ESC}[?1049l${ESC}[?1000hMODES END-1\n`, "latin1"),
  Buffer.from(
    `${ESC}]0;PWNED-TITLE-0${BEL}${ESC}]2;PWNED-TITLE-2${ST}TITLES-GONE ${ESC}]8;;https://evil.example/PWNED-LINK${ST}click-me${ESC}]8;;${ST} ` +
      `${ESC}]52;c;UFdORUQtQ0xJUA==${BEL}CLIP-GONE END-2\n`,
    "latin1",
  ),
  Buffer.concat([
    Buffer.from(`${ESC}P1$tPWNED-DCS${ST}DCS-GONE ${ESC}Pq#0;2;0;0;0#0~~@@vv${ST}SIXEL-GONE BELL-HERE${BEL} `, "latin1"),
    Buffer.from("\u009b31mC1-CSI \u009d0;PWNED-C1-TITLE\u009c C1-OSC-GONE END-3\n", "utf8"),
  ]),
  Buffer.concat([Buffer.from("INVALID["), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from("]UTF8 END-4\n")]),
];
const PAYLOAD = Buffer.concat(LINES);
/** What bash hands the record: the bytes decoded as UTF-8, invalid ones as U+FFFD (a JSON
 * record cannot hold raw invalid bytes); every escape sequence untouched. */
const DECODED = new TextDecoder("utf-8", { fatal: false }).decode(PAYLOAD);

/** Sequences that only the tool (or the model) could have written: none may reach the terminal. */
const FORBIDDEN: [string, string][] = [
  ["CSI cursor position to row 97", `${ESC}[97;3H`],
  ["CSI cursor up 37", `${ESC}[37A`],
  ["CSI erase scrollback", `${ESC}[3J`],
  ["RIS full reset", `${ESC}c`],
  ["leave the alternate screen", `${ESC}[?1049l`],
  ["mouse tracking", `${ESC}[?1000h`],
  ["any OSC (title, link, clipboard)", `${ESC}]`],
  ["any DCS", `${ESC}P`],
  ["BEL", BEL],
  ["C1 CSI", "\u009b"],
  ["C1 OSC", "\u009d"],
  ["C1 ST", "\u009c"],
  ["title payload", "PWNED-TITLE"],
  ["link target", "PWNED-LINK"],
  ["clipboard payload", "UFdORUQtQ0xJUA=="],
  ["DCS payload", "PWNED-DCS"],
  ["model title", "PWNED-MODEL"],
  ["model clipboard", "TU9ERUwtQ0xJUA=="],
  // a tool's input is what ran: shown with its sequence escaped (below), never the sequence
  ["tool input title", `${ESC}]0;PWNED-INPUT`],
  ["provider error title", "PWNED-ERROR"],
];

/** A provider error whose message tries the same trick: it is shown, so it must be inert too. */
const HOSTILE_ERROR = {
  status: 400,
  body: { type: "error", error: { type: "invalid_request_error", message: `bad thing ${ESC}]0;PWNED-ERROR${BEL}${ESC}[2J ERROR-END` } },
};

let fake: FakeProvider;
const homes: Home[] = [];
const ptys: PtySession[] = [];
const tally = new Tally();
let leaked: string[] = [];

afterAll(async () => {
  for (const p of ptys) p.kill();
  await fake?.close();
  const hits = await secretHits(
    homes.map((h) => h.root),
    [KEY],
  );
  await writeFigures("hostile-output", {
    tried: tally.tried.size,
    held: tally.held.size,
    sequencesTried: FORBIDDEN.length,
    sequencesLeaked: leaked.length,
    leaked,
    secretsFound: hits.length,
  });
  await removeHomes(homes);
  expect(hits).toEqual([]);
});

function check(name: string, fn: () => Promise<void>, timeout = 60_000): void {
  tally.it(name, fn, timeout);
}

async function setup(): Promise<Home> {
  fake ??= await startFakeProvider({ key: KEY });
  const h = await makeHome({ ANTHROPIC_API_KEY: KEY });
  homes.push(h);
  await fs.writeFile(path.join(h.workspace, "hostile.bin"), PAYLOAD);
  return h;
}

/** Feeds the bytes into a fresh terminal that reports every title, bell, link, clipboard write and DCS. */
async function replayEffects(raw: string): Promise<string[]> {
  const term = new Terminal({ cols: 160, rows: 40, allowProposedApi: true });
  const effects: string[] = [];
  term.onTitleChange((t) => effects.push(`title ${JSON.stringify(t)}`));
  term.onBell(() => effects.push("bell"));
  for (const id of [0, 1, 2, 4, 7, 8, 10, 11, 12, 52, 104, 133, 1337]) {
    term.parser.registerOscHandler(id, (data) => {
      effects.push(`OSC ${id} ${JSON.stringify(data.slice(0, 40))}`);
      return true;
    });
  }
  for (const final of ["q", "t", "p", "|", "{"]) {
    for (const intermediates of ["", "$", "+"]) {
      term.parser.registerDcsHandler({ intermediates, final }, (data) => {
        effects.push(`DCS ${intermediates}${final} ${JSON.stringify(data.slice(0, 40))}`);
        return true;
      });
    }
  }
  await new Promise<void>((resolve) => term.write(raw, resolve));
  term.dispose();
  return effects;
}

function leaks(raw: string, where: string): string[] {
  return FORBIDDEN.filter(([, seq]) => raw.includes(seq)).map(([what]) => `${where}: ${what}`);
}

describe("hostile tool output", () => {
  check("in the TUI: drawn as inert text, none of its sequences written to the terminal, stored unchanged", async () => {
    const h = await setup();
    fake.script(
      { toolCalls: [{ name: "bash", input: { command: `cat hostile.bin # ${ESC}]0;PWNED-INPUT${BEL}` } }] },
      { text: `Model done ${ESC}]52;c;TU9ERUwtQ0xJUA==${BEL}${ESC}]0;PWNED-MODEL${BEL} MODEL-END` },
    );
    const t = spawnPty(process.execPath, [CLI, "--permission", "auto", ...anthropicArgs(fake)], {
      cols: 160,
      rows: 40,
      cwd: h.workspace,
      env: { ...h.env, TERM: "xterm-256color" },
    });
    ptys.push(t);
    await t.waitFor("Type a request", 20_000);
    const start = t.rawOutput().length;
    t.send("show me the file");
    await t.waitFor("show me the file");
    t.send(KEYS.enter);
    await t.waitFor("MODEL-END", 20_000);
    t.send(KEYS.altUp); // the transcript, with the last tool call selected
    await t.waitFor("expand");
    t.send(KEYS.enter);
    await t.waitFor("END-4", 10_000);
    await t.settle(200);

    // on screen: each attack line is one line of plain words, in order, where it belongs
    const rows = t.screenText().split("\n");
    const row = (marker: string): string => rows.find((r) => r.includes(marker)) ?? `(no row with ${marker})`;
    expect(row("END-1")).toMatch(/BEGIN-HOSTILE\s+CURSOR-MOVED\s+UP-MOVED\s+CLEARED\s+RESET\s+MODES END-1/);
    expect(row("END-2")).toMatch(/TITLES-GONE\s+click-me\s+CLIP-GONE END-2/);
    expect(row("END-3")).toMatch(/DCS-GONE\s+SIXEL-GONE BELL-HERE\s+C1-CSI\s+C1-OSC-GONE END-3/);
    expect(row("END-4")).toMatch(/INVALID\[\uFFFD+\]UTF8 END-4/);
    expect(row("MODEL-END")).toMatch(/Model done\s+MODEL-END/);
    // the four output lines are consecutive rows: nothing moved the cursor between them
    const at = ["END-1", "END-2", "END-3", "END-4"].map((m) => rows.findIndex((r) => r.includes(m)));
    expect(at.map((y) => y - at[0]!)).toEqual([0, 1, 2, 3]);
    // the session's first lines are still there: nothing cleared the screen
    expect(t.screenText()).toContain("› show me the file");
    // the command that ran, whole: its title sequence shown escaped, not removed with its text
    expect(t.screenText()).toContain("$ cat hostile.bin # \\u001b]0;PWNED-INPUT\\u0007");

    // a provider error that carries sequences: shown, inert
    t.send(KEYS.escape); // back to the prompt
    await t.settle(100);
    fake.script(HOSTILE_ERROR);
    t.send("one more");
    await t.waitFor("one more");
    t.send(KEYS.enter);
    await t.waitFor("ERROR-END", 20_000);
    expect(t.screenText().split("\n").find((r) => r.includes("ERROR-END"))).toMatch(/bad thing\s+ERROR-END/);

    // in the bytes: none of the tool's, the model's or the provider's sequences, and no effect when replayed
    const raw = t.rawOutput().slice(start);
    leaked = leaks(raw, "TUI");
    expect(leaked).toEqual([]);
    // the one effect is the screen's own question for the background colour, asked once at
    // start (src/ui/background.ts): it sets nothing
    expect(await replayEffects(t.rawOutput())).toEqual(['OSC 11 "?"']);

    t.send(KEYS.ctrl("c"));
    await t.waitFor("again to quit");
    t.send(KEYS.ctrl("c"));
    expect((await t.exited()).exitCode).toBe(0);

    // in the record: the output exactly as bash captured it, sequences and all
    const rec = await readRecord(h.db);
    const result = rec.messages.flatMap((m) => m.blocks).find((b) => b.type === "tool_result");
    expect(result).toBeDefined();
    if (result?.type !== "tool_result") throw new Error("no tool result");
    expect(result.output).toBe(`${DECODED.replace(/\n$/, "")}\n[exit code 0]`);
    for (const seq of [`${ESC}]52;c;UFdORUQtQ0xJUA==${BEL}`, `${ESC}[97;3H`, `${ESC}P1$tPWNED-DCS${ST}`, "\u009b31m", "\uFFFD"]) {
      expect(result.output).toContain(seq);
    }
    // and the export keeps it too (JSON escapes it; Markdown is for reading, not for a terminal)
    const exp = await runCli(["export", rec.session.id, "--format", "json"], h);
    expect(exp.code).toBe(0);
    expect(exp.stdout).toContain("\\u001b]52;c;UFdORUQtQ0xJUA==\\u0007");
  });

  check("in headless -p: progress lines and the error on stderr carry none of the sequences", async () => {
    const h = await setup();
    fake.script({ toolCalls: [{ name: "bash", input: { command: "cat hostile.bin; exit 3 # \u009d0;PWNED-INPUT\u009c" } }] }, { text: "Saw a failure." });
    const r = await runCli(["-p", "run it", "--permission", "auto", ...anthropicArgs(fake)], h);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/✗ bash \d+\.\ds: BEGIN-HOSTILE/);
    const found = leaks(r.stderr, "-p stderr").concat(r.stderr.includes(ESC) ? ["-p stderr: ESC"] : []);
    leaked.push(...found);
    expect(found).toEqual([]);
    // the model still got the output as it was
    const rec = await readRecord(h.db);
    const result = rec.messages.flatMap((m) => m.blocks).find((b) => b.type === "tool_result");
    expect(result?.type === "tool_result" && result.output.startsWith(DECODED.replace(/\n$/, ""))).toBe(true);
    // a provider error with sequences, printed as the reason for exit 1
    fake.script(HOSTILE_ERROR);
    const e = await runCli(["-p", "again", "--continue", ...anthropicArgs(fake)], h);
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/albedo-tui: .*bad thing\s+ERROR-END/);
    const errLeaks = leaks(e.stderr, "-p error").concat(e.stderr.includes(ESC) ? ["-p error: ESC"] : []);
    leaked.push(...errLeaks);
    expect(errLeaks).toEqual([]);
  });
});
