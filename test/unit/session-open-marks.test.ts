// The session lists say where a session is open other than here: the screen's picker
// (/sessions) and `albedo-tui sessions` mark a session held by another live process "open
// elsewhere", and one whose turn runs on there after its terminal hung up "running (detached)";
// the CLI names the process. Text from outside (a host name) stays inert.
import { describe, expect, it } from "vitest";
import { sessionsBox } from "../../src/ui/modal.js";
import { openMark, sessionLines } from "../../src/ui/session-list.js";
import { lineText } from "../../src/ui/style.js";
import type { SessionInfo } from "../../src/record/types.js";

const at = "2026-12-07T10:00:00.000Z";
const s = (id: string, title: string, open?: SessionInfo["open"]): SessionInfo => ({ id, title, workspace: "/w", createdAt: at, updatedAt: at, messages: 2, ...(open ? { open } : {}) });
const list: SessionInfo[] = [
  s("aaaaaaaa0001", "here"),
  s("bbbbbbbb0002", "in the other tmux window", { pid: 4242, detached: false }),
  s("cccccccc0003", "hung up mid-turn", { pid: 5151, detached: true }),
  s("dddddddd0004", "on the build box", { pid: 77, host: "build\u001b]0;x\u0007box", detached: true }),
  s("eeeeeeee0005", "closed"),
];
const KEYS = { move: "Up/Down", choose: "Enter", close: "Esc" };

describe("where a session is open, in the lists", () => {
  it("names the mark", () => {
    expect(list.map(openMark)).toEqual([undefined, "open elsewhere", "running (detached)", "running (detached)", undefined]);
  });

  it("the picker marks each row, keeps (current) for this one, and every row its width", () => {
    const box = sessionsBox(list, "aaaaaaaa0001", 0, 100, 20, KEYS);
    const rows = box.lines.map(lineText);
    const row = (id: string): string => rows.find((r) => r.includes(id.slice(0, 8)))!;
    expect(row("aaaaaaaa0001")).toMatch(/aaaaaaaa .*\(current\)/);
    expect(row("bbbbbbbb0002")).toMatch(/in the other tmux window .*bbbbbbbb .*open elsewhere/);
    expect(row("cccccccc0003")).toMatch(/hung up mid-turn .*cccccccc .*running \(detached\)/);
    expect(row("eeeeeeee0005")).not.toMatch(/open|running|current/);
    const widths = new Set(box.lines.map((l) => lineText(l).length));
    expect(widths.size).toBe(1);
    // at 40 columns the date goes and the marks shorten; the title keeps some room
    const narrow = sessionsBox(list, "aaaaaaaa0001", 2, 40, 20, KEYS).lines.map(lineText);
    expect(narrow.find((r) => r.includes("cccccccc"))).toMatch(/hung up mid.* cccccccc  detached /);
    expect(narrow.find((r) => r.includes("bbbbbbbb"))).toMatch(/in the other.* bbbbbbbb  elsewhere/);
    for (const l of narrow) expect(l.length).toBe(38);
  });

  it("the picker needs no wider column when no session is open elsewhere", () => {
    const plain = [s("aaaaaaaa0001", "here"), s("eeeeeeee0005", "closed")];
    const rows = sessionsBox(plain, "aaaaaaaa0001", 0, 60, 10, KEYS).lines.map(lineText);
    expect(rows.find((r) => r.includes("eeeeeeee"))).toMatch(/closed +eeeeeeee  2026-12-07 10:00 {12}│?$/);
  });

  it("albedo-tui sessions adds a column naming the process, only when a session is open elsewhere", () => {
    const inert = (t: string): string => t.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
    const lines = sessionLines(list, new Date(at), inert);
    expect(lines[0]).toMatch(/^aaaaaaaa0001 .* {2}here {2}\/w$/);
    expect(lines[1]).toMatch(/ {2}open elsewhere \(pid 4242\) +in the other tmux window {2}\/w$/);
    expect(lines[2]).toMatch(/ {2}running \(detached, pid 5151\) +hung up mid-turn {2}\/w$/);
    expect(lines[3]).toContain("running (detached, pid 77 on build?]0;x?box)  on the build box");
    expect(lines.join("\n")).not.toContain("\u001b");
    // no session open elsewhere: the lines as they always were
    expect(sessionLines([s("eeeeeeee0005", "closed")], new Date(at))).toEqual(["eeeeeeee0005  just now  2 msgs  -  closed  /w"]);
  });
});
