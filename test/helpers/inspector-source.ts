// An inspector source for the context pane's unit tests: serves one view and its pages, and
// records what the pane asked for, in order.
import type { InspectorView, Page } from "../../src/context/types.js";
import type { InspectorSource } from "../../src/ui/context-pane.js";

export function recordingSource(
  view: InspectorView,
  text: (section: number, page: number) => string = (s, p) => `text of section ${s} page ${p}`,
): InspectorSource & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async inspectorView() {
      calls.push("view");
      return view;
    },
    async inspectorPage(s: number, p: number): Promise<Page | undefined> {
      calls.push(`page ${s} ${p}`);
      if (view.state !== "current" || !view.sections[s] || p >= view.sections[s]!.pages) return undefined;
      return { section: s, page: p, pages: view.sections[s]!.pages, text: text(s, p) };
    },
  };
}
