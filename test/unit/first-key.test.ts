// The work a session needs only once the person types (src/ui/first-key.ts): it runs once,
// at the first key a person typed (focus reports are not keys), after that key's own frame,
// and a key typed before the session was shown starts it as soon as the session is there.
import { describe, expect, it } from "vitest";
import { FirstKey } from "../../src/ui/first-key.js";
import { KeyParser } from "../../src/ui/keys.js";

const events = (bytes: string) => new KeyParser().feed(bytes);
const tick = () => new Promise<void>((r) => setImmediate(r));

describe("the first key's work", () => {
  it("does not run on an idle screen, nor for the terminal's focus reports", async () => {
    const f = new FirstKey();
    let runs = 0;
    f.arm(() => runs++);
    f.input(events("\x1b[I"));
    f.input(events("\x1b[O"));
    f.input([]);
    await tick();
    expect(runs).toBe(0);
    expect(f.started()).toBe(false);
  });

  it("runs once, after the key is handled (the next turn of the event loop)", async () => {
    const f = new FirstKey();
    const order: string[] = [];
    f.arm(() => order.push("work"));
    f.input(events("a"));
    order.push("key handled");
    f.input(events("bc"));
    f.input(events("\r"));
    await tick();
    await tick();
    expect(order).toEqual(["key handled", "work"]);
  });

  it("a key typed before the session was shown starts the work once the session is there", async () => {
    const f = new FirstKey();
    let runs = 0;
    f.input(events("h"));
    await tick();
    expect(runs).toBe(0);
    f.arm(() => runs++);
    await tick();
    expect(runs).toBe(1);
  });

  it("a paste counts as typing, a focus report in the same chunk as a key does too", async () => {
    for (const bytes of ["\x1b[200~pasted\x1b[201~", "\x1b[Ix"]) {
      const f = new FirstKey();
      let runs = 0;
      f.arm(() => runs++);
      f.input(events(bytes));
      await tick();
      expect(runs, JSON.stringify(bytes)).toBe(1);
    }
  });
});
