// The turn's parts: the providers' adapters, the tools and the turn (parts.ts), loaded once,
// with the project context (AGENTS.md, CLAUDE.md, two git runs) read beside them. Compiling
// the one and spawning git for the other would sit between the screen's first frame and the
// session's, so the screen loads them after the frame that shows the session; a turn,
// /compact, /reload and the figure wait for them.
import type { ContextItem } from "../../provider/types.js";
import type { ToolDef } from "../../tools/types.js";
import { messageOf } from "../../record/errors.js";
import type { EventHub } from "../turn/events.js";

/** The adapters, the tools and the turn, imported lazily. */
export type Parts = typeof import("./parts.js");

interface PartsLoad {
  /** the lazy import of parts.ts */
  parts(): Promise<Parts>;
  /** reads the project context */
  context(): Promise<ContextItem[]>;
  events: EventHub;
}

export class TurnParts {
  /** the project's context items, read with the parts (and again by /reload) */
  context: ContextItem[] = [];
  /** the built-in tools, made when the parts load (a request is built only after that) */
  tools: ToolDef[] = [];
  /** set once ready() has loaded them */
  private parts: Parts | undefined;
  private loading: Promise<Parts> | undefined;
  /** settles when ready() has loaded the parts: the figure waits for this, never starting the load itself */
  readonly arrived: Promise<Parts>;
  private arrive!: (p: Parts) => void;

  constructor(private readonly load: PartsLoad) {
    this.arrived = new Promise((resolve) => (this.arrive = resolve));
  }

  /** Loads the parts and reads the project context, once. A failure is said, and the next call tries again. */
  ready(): Promise<Parts> {
    this.loading ??= Promise.all([this.load.parts(), this.load.context()]).then(
      ([p, context]) => {
        this.context = context;
        this.parts = p;
        this.tools = p.builtinTools();
        this.arrive(p);
        return p;
      },
      (e: unknown) => {
        this.loading = undefined;
        this.load.events.emit({ type: "notice", level: "error", text: `Could not load what a turn needs: ${messageOf(e)}` });
        throw e;
      },
    );
    return this.loading;
  }

  /** the parts when they are in, else undefined */
  ifLoaded(): Parts | undefined {
    return this.parts;
  }

  /** the parts, where only code that ran after ready() can be */
  loaded(): Parts {
    if (!this.parts) throw new Error("internal: the turn's parts were used before App.ready()");
    return this.parts;
  }
}
