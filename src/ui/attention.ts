// The screen's ways of reaching a person who is not looking at it: the terminal's title says
// the session and its state, and a notice (notify.ts) goes out when a turn ends or a question
// waits while the terminal does not have the focus. app.ts hands it the session's events.
import type { NotifyChoice } from "../config/config.js";
import type { TurnState } from "../session/turn/events.js";
import { FOCUS_REPORTING_OFF, FOCUS_REPORTING_ON, Notifier } from "./notify.js";
import { TitleKeeper, type TitleState } from "./title.js";

export class Attention {
  private notifier: Notifier;
  private readonly title: TitleKeeper;
  private label = "";
  private state: TitleState = "idle";
  private focused: boolean | undefined;

  constructor(
    private readonly write: (bytes: string) => void,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.notifier = new Notifier(write, "auto", env);
    this.title = new TitleKeeper(write);
  }

  /** the terminal reports its focus from now on */
  start(): void {
    this.write(FOCUS_REPORTING_ON);
  }

  /** the config's choice, once it is read */
  configure(choice: NotifyChoice): void {
    this.notifier = new Notifier(this.write, choice, this.env);
    if (this.focused !== undefined) this.notifier.focus(this.focused);
  }

  focus(focused: boolean): void {
    this.focused = focused;
    this.notifier.focus(focused);
  }

  /** the session shown: its title, or its short id */
  session(label: string): void {
    this.label = label;
    this.title.set(this.label, this.state);
  }

  turnState(state: TurnState, busy: boolean): void {
    this.state = state === "permission" ? "waiting for you" : state !== "idle" || busy ? "working" : "idle";
    this.title.set(this.label, this.state);
  }

  turnEnded(how: { ok: boolean; interrupted?: boolean; error?: string }): void {
    this.state = "idle";
    this.title.set(this.label, this.state);
    const said = how.ok ? "the turn is done" : how.interrupted ? "the turn was interrupted" : "the turn failed";
    this.notifier.notify(`albedo-tui: ${said}${this.label ? ` (${this.label})` : ""}`);
  }

  question(tool: string): void {
    this.state = "waiting for you";
    this.title.set(this.label, this.state);
    this.notifier.notify(`albedo-tui: permission asked for ${tool}${this.label ? ` (${this.label})` : ""}`);
  }

  /** what restores the terminal: focus reports off, its own title back */
  restore(): string {
    return FOCUS_REPORTING_OFF + this.title.restore();
  }
}
