// The todo tool's list survives compaction: in a real session (real SQLite, the strict fake
// provider over loopback), the model keeps a list, a summary replaces the turns that kept it,
// and the next request carries the list whole as its own context section, which the inspector
// names; the list is in the record, so a resumed session sends it the same.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { appDefaults, makeApp } from "../helpers/app.js";
import { openStore } from "../../src/session/store/store.js";
import { App } from "../../src/session/controller/controller.js";
import { latestTodoList } from "../../src/tools/todo-list.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const words = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
const systemTexts = (i: number): string[] => ((fake.requests[i]!.body.system ?? []) as Array<{ text: string }>).map((b) => b.text);

const ITEMS = [
  { content: "read the parser", status: "done" },
  { content: "write the failing test PLAN-MARK", status: "in_progress" },
  { content: "fix the off-by-one", status: "pending" },
];

describe("the task list after a summary", () => {
  it("is sent whole as its own section after /compact, and again after a resume", async () => {
    const { app, dbPath, workspace } = await makeApp(fake, { compaction: "microcompact+summary" });
    fake.script({ toolCalls: [{ name: "todo", input: { items: ITEMS }, id: "toolu_todo1" }] }, { text: words(1500, "a") });
    await app.submit("plan the fix");
    expect(fake.rejections()).toEqual([]);
    // the tool is offered, and its result reads the list back
    expect((fake.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain("todo");
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("[>] write the failing test PLAN-MARK");
    expect(latestTodoList(app.history())?.map((i) => i.status)).toEqual(["done", "in_progress", "pending"]);
    // before any summary no request carries it as a section: the calls are in the history
    expect(systemTexts(1).some((t) => t.includes("Your task list"))).toBe(false);

    fake.script({ text: words(1500, "b") });
    await app.submit(words(1500, "q"));
    fake.script({ text: "SUMMARY-NOTE without the plan" });
    expect(await app.compact()).toMatch(/summarised/);
    fake.script({ text: "carrying on" });
    await app.submit("next step");
    const last = fake.requests.length - 1;
    const body = JSON.stringify(fake.requests[last]!.body.messages);
    expect(body).toContain("SUMMARY-NOTE");
    // the todo call itself was summarised away...
    expect(body).not.toContain("toolu_todo1");
    // ...and the list is its own section, whole
    const list = systemTexts(last).filter((t) => t.startsWith("Your task list"));
    expect(list).toHaveLength(1);
    expect(list[0]).toContain("[x] read the parser\n[>] write the failing test PLAN-MARK\n[ ] fix the off-by-one");
    const view = await app.inspectorView();
    expect(view.state === "current" ? view.sections.map((s) => s.source) : []).toContain("task list");

    // resumed in another run: the same section, read from the record
    const id = app.session().id;
    await app.close();
    fake.requests.length = 0;
    const store = await openStore(dbPath);
    const resumed = await App.create({ store, ...appDefaults(fake, workspace), compaction: "microcompact+summary", open: { resume: id } });
    fake.script({ text: "resumed" });
    await resumed.submit("go on");
    expect(systemTexts(0).filter((t) => t.startsWith("Your task list"))).toEqual(list);
    await resumed.close();
  });
});
