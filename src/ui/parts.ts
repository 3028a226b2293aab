// The rest of the screen: what the full screen needs beyond its first frame (the transcript
// with marked, the context pane with the inspector's formatting, the slash commands, the
// boxes and the highlighter; exact widths come at the first key, text.ts). Every import here
// is lazy, so the first frame compiles none of it; the loads overlap the session's own while
// that frame is up.

/** the screen's parts once they are in, by what they do */
export interface ScreenParts {
  Transcript: typeof import("./transcript.js").Transcript;
  ContextPane: typeof import("./context-pane.js").ContextPane;
  /** what Enter does with the prompt, and the model list's box */
  run: typeof import("./run-command.js");
  /** the permission question's and the session picker's boxes */
  boxes: typeof import("./modal.js");
  highlight: typeof import("./highlight.js");
}

/** loads them all at once; string-width is not among them (text.ts: it loads when a width needs it, or at the first key) */
export async function loadParts(): Promise<ScreenParts> {
  const [transcript, pane, run, boxes, highlight] = await Promise.all([
    import("./transcript.js"),
    import("./context-pane.js"),
    import("./run-command.js"),
    import("./modal.js"),
    import("./highlight.js"),
  ]);
  return { Transcript: transcript.Transcript, ContextPane: pane.ContextPane, run, boxes, highlight };
}
