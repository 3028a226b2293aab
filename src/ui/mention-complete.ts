// The screen's side of `@` completion, kept apart from mentions.ts so the first frame loads
// neither the index nor fuzzysort: they come with the first `@` typed.
import type { MentionIndex } from "./mentions.js";
import { mentionAt } from "./mention-word.js";

/** what the hint line shows while an `@word` is typed */
export interface MentionHint {
  loading: boolean;
  paths: string[];
}

/** The screen's side of `@` completion: the index, loaded (and the walk started) at the first
 * `@` typed, walked again after each prompt so new files show. */
export class MentionCompleter {
  private index: MentionIndex | undefined;
  private loading = false;

  constructor(
    private readonly workspace: () => string | undefined,
    private readonly redraw: () => void,
  ) {}

  private ensure(): MentionIndex | undefined {
    if (this.index || this.loading) return this.index;
    const ws = this.workspace();
    if (ws === undefined) return undefined;
    this.loading = true;
    void import("./mentions.js").then(
      (m) => {
        this.index = new m.MentionIndex(ws, this.redraw);
        void this.index.refresh();
      },
      () => {
        this.loading = false;
      },
    );
    return undefined;
  }

  /** the candidates for the `@word` at the cursor; undefined when none is being typed */
  hint(text: string, cursor: number): MentionHint | undefined {
    const m = mentionAt(text, cursor);
    if (!m) return undefined;
    const index = this.ensure();
    if (!index?.ready()) return { loading: true, paths: [] };
    return { loading: false, paths: index.find(m.query, 6) };
  }

  /** Tab on an `@word`: the text with the best match in its place, and the cursor after it */
  complete(text: string, cursor: number): { text: string; cursor: number } | undefined {
    const m = mentionAt(text, cursor);
    if (!m) return undefined;
    const best = this.ensure()?.find(m.query, 1)[0];
    if (best === undefined) return undefined;
    const after = text.slice(m.end);
    const insert = `@${best}${after.startsWith(" ") ? "" : " "}`;
    return { text: text.slice(0, m.start) + insert + after, cursor: m.start + insert.length };
  }

  /** a prompt was sent: the next `@` walks the workspace again */
  sent(): void {
    void this.index?.refresh();
  }
}
