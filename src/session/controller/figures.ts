// The session's figures for the status line: the token figure the context pane gives (the
// stored request's, or an estimate of the next one), what the provider reported for the last
// response, and what compaction did for the last request.
import type { Usage } from "../../provider/types.js";
import type { ModelInfo } from "../../provider/catalog.js";
import type { Session } from "../../record/types.js";
import { messageOf } from "../../record/errors.js";
import type { Capture, InspectorView } from "../../context/types.js";
import { formatFigure, requestEstimate } from "../../context/format.js";
import { autoCompactionOff, type PrepareResult } from "../../compaction/prepare.js";
import type { CompactionStrategy } from "../../compaction/types.js";
import type { EventHub } from "../turn/events.js";
import type { ContextFigure, ContextStatus } from "./types.js";

/** what the figure is worked out from */
interface FigureSources {
  events: EventHub;
  /** the session shown: a figure worked out for another one is dropped */
  session(): Session;
  /** what the context pane shows */
  view(): Promise<InspectorView>;
  /** settles when the whole record is read; fails when it cannot be */
  wholeHistory(): Promise<void>;
  /** whether the turn's parts are in, and the promise that they will be (never starting their load) */
  partsLoaded(): boolean;
  partsIn: Promise<unknown>;
  /** the whole record prepared as a turn prepares it; only once the parts are in */
  prepare(): Promise<PrepareResult>;
  /** the capture of the request a turn would send after that prepared history */
  captureNext(prior: PrepareResult["messages"]): Capture;
  /** the app is closing: the figure is shown nowhere any more, and the store must not be read */
  closing(): boolean;
  /** settles when closing begins: a wait for parts that may never load stops there */
  closeStarted: Promise<void>;
  /** tracks work nobody awaits, so that closing can await it before the store closes */
  background(work: Promise<void>): Promise<void>;
}

export class SessionFigures {
  /** what the provider reported for the last response (the next capture shows it) */
  lastUsage: Usage | undefined;
  /** what compaction did for the last request, for the status line */
  lastPrepare: PrepareResult | undefined;
  /** the status line's figure (see ContextFigure), worked out again after every capture or
   * pending mark; undefined until then */
  private figure: ContextFigure | undefined;
  /** the latest figure refresh: an older one that ends later must not overwrite it */
  private figureRun = 0;
  /** no turn is running: the figure is the next request's estimate */
  private betweenTurns = true;

  constructor(private readonly from: FigureSources) {
    // a capture stored, or the view marked pending: the pane shows something else now, and
    // the status line must give the same figure
    // between turns the figure that matters is what the next request will weigh (an answer of
    // 20,000 words is in it, and not in the last request's); while a turn runs, the request sent
    from.events.subscribe((e) => {
      if (e.type === "capture") {
        this.betweenTurns = false;
        void this.refresh();
      } else if (e.type === "turn_end") {
        this.betweenTurns = true;
        void this.refresh();
      }
    });
  }

  /** a session opened: the usage stored with its last answer, and no figure until it is worked out */
  opened(lastUsage: Usage | undefined): void {
    this.betweenTurns = true;
    this.lastUsage = lastUsage;
    this.lastPrepare = undefined;
    this.figure = undefined;
  }

  /**
   * Works the status line's figure out again from what the context pane shows: the stored
   * request's total while the view is current; while it is pending, the capture of the
   * request a turn would send now (the whole record, prepared as the turn prepares it).
   */
  refresh(): Promise<void> {
    // a capture saved after the turn ended (an error or a signal ends it before its capture
    // write does) comes while the app closes: nothing is worked out on a store about to close
    if (this.from.closing()) return Promise.resolve();
    return this.from.background(this.workOut());
  }

  private async workOut(): Promise<void> {
    const run = ++this.figureRun;
    const wasBetween = this.betweenTurns;
    const session = this.from.session();
    const superseded = (): boolean => run !== this.figureRun || session !== this.from.session() || this.from.closing();
    let figure: ContextFigure | undefined;
    try {
      const view = await this.from.view();
      if (view.state === "current") figure = { basis: "last request", ...requestEstimate(view.sections) };
      if (view.state === "pending" || wasBetween) {
        // until the estimate is worked out, the last request's figure rather than none
        if (figure && this.figure === undefined && !superseded()) {
          this.figure = figure;
          this.from.events.emit({ type: "info" });
        }
        // a failure to read the rest of the record was told when it happened; no figure then
        const whole = await this.from.wholeHistory().then(
          () => true,
          () => false,
        );
        if (superseded()) return;
        // built as a turn builds it, with the tools: nothing until they are in, never a guess
        // parts that never load (their import failed) must not hold closing up
        if (!this.from.partsLoaded()) await Promise.race([this.from.partsIn, this.from.closeStarted]);
        if (superseded()) return;
        if (whole) {
          const prepared = await this.from.prepare();
          if (superseded()) return;
          figure = { basis: "next request", ...requestEstimate(this.from.captureNext(prepared.messages).sections) };
        }
      }
    } catch (e) {
      if (superseded()) return;
      this.from.events.emit({ type: "notice", level: "warning", text: `The context figure could not be worked out: ${messageOf(e)}` });
    }
    if (superseded()) return;
    this.figure = figure;
    this.from.events.emit({ type: "info" });
  }

  /** the status line's context figures, for the model in use and the compaction strategy */
  status(m: ModelInfo, strategy: CompactionStrategy): ContextStatus {
    const off = autoCompactionOff(m.contextWindow);
    const prep = this.lastPrepare;
    const did = prep && prep.note !== "none" ? prep.note : undefined;
    const compaction = [`${strategy}`, did, off].filter(Boolean).join(" · ");
    const f = this.figure;
    return {
      ...(f ? { figure: f } : {}),
      estimate: f ? formatFigure(f.basis, f) : "",
      ...(m.contextWindow ? { window: m.contextWindow } : {}),
      compaction,
    };
  }
}
