// The /model list: for each configured provider, the server's own models
// (a local server's appear by name) and the catalog's, one row each, chosen with ↑/↓ and
// Enter or with the row's number. Pure: the list is built from what the controller fetched
// (src/provider/models.ts), and the box is lines like the other boxes (modal.ts).
import type { ModelChoices } from "../provider/models.js";
import { choiceRows, frame, NOT_READY, type Box } from "./modal.js";
import { inertLine } from "./inert.js";
import type { Line } from "./style.js";
import { fit, formatInt, restyle, textWidth, truncate, wrapText } from "./text.js";

interface ModelRow {
  /** what /model is given when the row is chosen: "provider:id" */
  spec: string;
  provider: string;
  id: string;
  /** "served, catalog", "served" or "catalog"; a display name the server gives */
  note: string;
  current: boolean;
}

export interface ModelPicker {
  rows: ModelRow[];
  /** what could not be listed, one line per provider that failed ("openai: … (404)") */
  notes: string[];
  index: number;
}

/** How many rows answer to a number key (1–9). */
export const NUMBERED = 9;

/**
 * The rows: providers in the order given (the current one first), and within each the
 * server's models in its order, then the catalog's that it did not list. A model both serve
 * and catalog name is one row. The current model is selected, and listed even when neither
 * names it.
 */
export function buildModelPicker(c: ModelChoices): ModelPicker {
  const rows: ModelRow[] = [];
  const notes: string[] = [];
  for (const p of c.providers) {
    const seen = new Map<string, ModelRow>();
    const add = (id: string, note: string): void => {
      const known = seen.get(id);
      if (known) {
        known.note = known.note ? `${known.note}, ${note}` : note;
        return;
      }
      const row: ModelRow = { spec: `${p.provider}:${id}`, provider: p.provider, id, note, current: p.provider === c.current.provider && id === c.current.model };
      seen.set(id, row);
      rows.push(row);
    };
    for (const m of p.served ?? []) add(m.id, m.displayName ? `served: ${m.displayName}` : "served");
    for (const id of p.catalog) add(id, "catalog");
    if (p.provider === c.current.provider && !seen.has(c.current.model)) add(c.current.model, "in use");
    if (p.error !== undefined) notes.push(`${p.provider}: ${p.error}`);
    else if (p.more) notes.push(`${p.provider}: the server lists more models than shown`);
  }
  const index = Math.max(0, rows.findIndex((r) => r.current));
  return { rows, notes, index };
}

interface ModelsKeys {
  /** "↑/↓" */
  move: string;
  choose: string;
  close: string;
}

export function modelsBox(p: ModelPicker, cols: number, rows: number, keys: ModelsKeys, ready = true): Box {
  const width = Math.max(30, Math.min(cols - 2, 100));
  const inner = width - 4;
  const footer: Line[] = [];
  // what could not be listed stays in view under the list, whatever the scroll
  for (const n of p.notes) footer.push(...wrapText(inertLine(n), inner, "warn"));
  footer.push(
    ...(ready
      ? choiceRows(
          [
            [{ t: keys.move, s: "key" }, { t: " choose" }],
            [{ t: `1–${Math.min(NUMBERED, p.rows.length)}`, s: "key" }, { t: " pick by number" }],
            [{ t: keys.choose, s: "key" }, { t: " switch" }],
            [{ t: keys.close, s: "key" }, { t: " cancel" }],
          ],
          inner,
        )
      : wrapText(NOT_READY, inner, "dim")),
  );
  const chrome = 3 + footer.length;
  const height = Math.max(chrome + 1, Math.min(rows - 2, p.rows.length + chrome));
  const room = height - chrome;
  const start = Math.min(Math.max(0, p.index - room + 1), Math.max(0, p.rows.length - room));
  const body: Line[] = [];
  for (let i = start; i < Math.min(p.rows.length, start + room); i++) {
    const r = p.rows[i]!;
    const num = i < NUMBERED ? `${i + 1}` : " ";
    const right = `${r.note}${r.current ? "  (current)" : ""}`;
    const left: Line = [{ t: `${num.padStart(2)}  `, s: "key" }, { t: inertLine(r.provider), s: "dim" }, { t: ":" }, { t: inertLine(r.id) }];
    const rightW = Math.min(textWidth(right), Math.max(0, Math.floor(inner / 2)));
    const leftW = Math.max(4, inner - rightW - 2);
    const line: Line = [...fit(truncate(left, leftW), leftW), { t: "  " }, ...truncate([{ t: inertLine(right), s: "dim" }], rightW)];
    body.push(i === p.index ? restyle(fit(line, inner), { inv: true }) : line);
  }
  if (p.rows.length === 0) body.push([{ t: "no models to list", s: "dim" }]);
  return frame(`Models (${formatInt(p.rows.length)})`, body, footer, width, height);
}
