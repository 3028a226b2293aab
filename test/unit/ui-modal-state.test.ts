import { describe, expect, it } from "vitest";
import { fitted, moveBy, scrollBy, stepWithin, type Modal } from "../../src/ui/modal-state.js";
import { permissionBox } from "../../src/ui/modal.js";
import type { ModelPicker } from "../../src/ui/model-list.js";
import type { Session } from "../../src/record/types.js";
import type { PermissionRequest } from "../../src/tools/types.js";

const KEYS = { once: "y", session: "a", tool: "A", deny: "n", scroll: "↑/↓ PgUp/PgDn" };

function question(lines: number): PermissionRequest {
  const command = Array.from({ length: lines }, (_, i) => `echo line ${i}`).join("\n");
  return { tool: "bash", kind: "exec", input: { command }, summary: "bash: echo" };
}

function asking(req: PermissionRequest, scroll = 0, maxScroll = 0): Modal {
  return { kind: "permission", queue: [{ req, answer: () => undefined }], scroll, maxScroll };
}

function session(id: string): Session {
  return { id, title: id, workspace: "/w", createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" };
}

function models(n: number, index = 0): Modal {
  const rows = Array.from({ length: n }, (_, i) => ({ spec: `p:m${i}`, provider: "p", id: `m${i}`, note: "catalog", current: i === index }));
  const picker: ModelPicker = { rows, notes: [], index };
  return { kind: "models", picker };
}

describe("modal state", () => {
  it("steps within 0 … last, and never below 0 even when there is nothing to step over", () => {
    expect(stepWithin(0, -1, 5)).toBe(0);
    expect(stepWithin(3, -10, 5)).toBe(0);
    expect(stepWithin(3, 1, 5)).toBe(4);
    expect(stepWithin(4, 10, 5)).toBe(5);
    expect(stepWithin(0, 1, -1)).toBe(0);
  });

  it("scrolls a question only as far as its box, as last drawn, allows", () => {
    let m = asking(question(3), 0, 4);
    m = scrollBy(m, 3);
    expect(m).toMatchObject({ scroll: 3 });
    m = scrollBy(m, 3);
    expect(m).toMatchObject({ scroll: 4 });
    m = scrollBy(m, -10);
    expect(m).toMatchObject({ scroll: 0 });
  });

  it("takes the scroll back to the end when a grown box shows more of the question", () => {
    const req = question(60);
    const small = permissionBox(req, KEYS, 0, 0, 80, 20);
    const big = permissionBox(req, KEYS, 0, 0, 80, 50);
    expect(small.maxScroll).toBeGreaterThan(big.maxScroll);
    expect(big.maxScroll).toBeGreaterThan(0);
    // scrolled to the end at the small size
    let m = fitted(asking(req), small.maxScroll);
    m = scrollBy(m, 1000);
    expect(m).toMatchObject({ scroll: small.maxScroll, maxScroll: small.maxScroll });
    // the terminal grew: the box is laid out again and its end is nearer
    m = fitted(m, big.maxScroll);
    expect(m).toMatchObject({ scroll: big.maxScroll, maxScroll: big.maxScroll });
    // a scroll within the new limit is kept as it is
    m = fitted(scrollBy(m, -1), small.maxScroll);
    expect(m).toMatchObject({ scroll: big.maxScroll - 1 });
  });

  it("moves the session picker's selection within its list", () => {
    let m: Modal = { kind: "sessions", list: [session("a"), session("b"), session("c")], index: 1 };
    m = moveBy(m, 1);
    expect(m).toMatchObject({ index: 2 });
    m = moveBy(m, 1);
    expect(m).toMatchObject({ index: 2 });
    m = moveBy(m, -5);
    expect(m).toMatchObject({ index: 0 });
  });

  it("moves the model list's selection within its rows, and stays at 0 with none", () => {
    let m = models(3, 0);
    m = moveBy(m, 2);
    expect(m.kind === "models" && m.picker.index).toBe(2);
    m = moveBy(m, 9);
    expect(m.kind === "models" && m.picker.index).toBe(2);
    m = moveBy(m, -1);
    expect(m.kind === "models" && m.picker.index).toBe(1);
    expect(moveBy(models(0), 1)).toMatchObject({ picker: { index: 0 } });
  });

  it("leaves what does not apply alone: pickers do not scroll, a question has no selection", () => {
    const q = asking(question(3), 1, 4);
    expect(moveBy(q, 1)).toBe(q);
    const s: Modal = { kind: "sessions", list: [session("a")], index: 0 };
    expect(scrollBy(s, 1)).toBe(s);
    expect(fitted(s, 3)).toBe(s);
    const p = models(2);
    expect(scrollBy(p, 1)).toBe(p);
  });
});
