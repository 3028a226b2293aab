// The screen's side of `@` completion, kept apart from mentions.ts so the first frame loads
// neither the index nor fuzzysort: they come once the screen is up and idle (prewarm), or with
// the first `@` typed, whichever is first.
import type { MentionIndex } from "./mentions.js";
import { mentionAt } from "./mention-word.js";

/** an `@` typed when the list is older than this walks the workspace again, behind the typing */
export const STALE_MS = 15_000;

/** what the hint line shows while an `@word` is typed */
export interface MentionHint {
  loading: boolean;
  paths: string[];
}

/** The screen's side of `@` completion: the index, loaded and walked off the keystroke path
 * (prewarm), walked again after each prompt and when an `@` finds it stale, so new files show. */
export class MentionCompleter {
  private index: MentionIndex | undefined;
  private loading: Promise<MentionIndex | undefined> | undefined;

  constructor(
    private readonly workspace: () => string | undefined,
    private readonly redraw: () => void,
  ) {}

  private ensure(): MentionIndex | undefined {
    if (this.index || this.loading) return this.index;
    const ws = this.workspace();
    if (ws === undefined) return undefined;
    this.loading = import("./mentions.js").then(
      (m) => {
        this.index = new m.MentionIndex(ws, this.redraw);
        void this.index.refresh();
        return this.index;
      },
      () => {
        this.loading = undefined;
        return undefined;
      },
    );
    return undefined;
  }

  /** Loads the index and walks the workspace now, so the first `@` finds the list in; resolves
   * when it is (or at once without a workspace). */
  async prewarm(): Promise<void> {
    this.ensure();
    const index = await this.loading;
    if (index && !index.ready()) await index.refresh();
  }

  /** the index, walked again in the background when its list is stale */
  private current(): MentionIndex | undefined {
    const index = this.ensure();
    if (index?.ready() && index.age() > STALE_MS) void index.refresh();
    return index;
  }

  /** the candidates for the `@word` at the cursor; undefined when none is being typed */
  hint(text: string, cursor: number): MentionHint | undefined {
    const m = mentionAt(text, cursor);
    if (!m) return undefined;
    const index = this.current();
    if (!index?.ready()) return { loading: true, paths: [] };
    return { loading: false, paths: index.find(m.query, 6) };
  }

  /** Tab on an `@word`: the text with the best match in its place, and the cursor after it */
  complete(text: string, cursor: number): { text: string; cursor: number } | undefined {
    const m = mentionAt(text, cursor);
    if (!m) return undefined;
    const best = this.current()?.find(m.query, 1)[0];
    if (best === undefined) return undefined;
    const after = text.slice(m.end);
    const insert = `@${best}${after.startsWith(" ") ? "" : " "}`;
    return { text: text.slice(0, m.start) + insert + after, cursor: m.start + insert.length };
  }

  /** a prompt was sent: the list is walked again (the turn may add files) */
  sent(): void {
    void this.index?.refresh();
  }
}
