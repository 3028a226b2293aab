// Benchmark 5: fetching one page of the inspector's capture through the store. Pages are
// stored as rows so that a page costs the same however large the request was; this compares
// page 0 and the last page of a 10 MB request's history section with those of a 100 kB one.
import path from "node:path";
import { openStore } from "../src/session/store/store.js";
import { captureRequest } from "../src/context/capture.js";
import { imageTarget, replayMessages } from "../src/replay/replay.js";
import { builtinTools, toolSchemas } from "../src/tools/run.js";
import { SYSTEM_PROMPT } from "../src/session/controller/project-context.js";
import type { Request } from "../src/provider/types.js";
import { makeHistory, type HistoryMessage } from "./history.js";
import { fmtBytes, fmtMs, median, now, removeDir, tempDir, type Row } from "./lib.js";

function request(history: readonly HistoryMessage[]): Request {
  return {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    system: SYSTEM_PROMPT,
    context: [],
    history: replayMessages(history, { vision: imageTarget("anthropic", true) }),
    tools: toolSchemas(builtinTools()),
    maxOutputTokens: 16_000,
    reasoning: "off",
  };
}

export async function benchPages(quick: boolean): Promise<Row[]> {
  const bigBytes = quick ? 1_000_000 : 10_700_000;
  const smallBytes = 100_000;
  const rounds = quick ? 10 : 60;
  const dir = await tempDir("pages");
  try {
    const store = await openStore(path.join(dir, "pages.sqlite"));
    const cases: { label: string; session: string; section: number; last: number; bytes: number }[] = [];
    for (const [label, bytes] of [
      ["small", smallBytes],
      ["big", bigBytes],
    ] as const) {
      const history = makeHistory({ targetBytes: bytes, images: 2, seed: 31 });
      if (history.at(-1)?.role !== "user") history.push({ role: "user", blocks: [{ type: "text", text: "Go on." }], status: "complete" });
      const capture = captureRequest(request(history), { iteration: 1, capturedAt: new Date().toISOString() });
      const session = await store.createSession({ workspace: "/bench", title: label });
      await store.saveCapture(session.id, capture);
      const section = capture.sections.findIndex((s) => s.kind === "history");
      const sec = capture.sections[section]!;
      cases.push({ label, session: session.id, section, last: sec.pages - 1, bytes: capture.meta.totalBytes });
    }
    const [small, big] = cases as [(typeof cases)[0], (typeof cases)[0]];

    // One sample is a batch of fetches (a single fetch is ~70 µs, too close to the timer's
    // and the machine's jitter); the four cases take turns in a rotating order, so that drift
    // of the machine and any order effect spread over all of them alike.
    const times = { small0: [] as number[], smallLast: [] as number[], big0: [] as number[], bigLast: [] as number[] };
    type Key = keyof typeof times;
    const plan: [Key, typeof small, number][] = [
      ["small0", small, 0],
      ["big0", big, 0],
      ["smallLast", small, small.last],
      ["bigLast", big, big.last],
    ];
    const batch = 20;
    for (let round = -2; round < rounds; round++) {
      for (let j = 0; j < plan.length; j++) {
        const [key, c, page] = plan[(j + Math.max(0, round)) % plan.length]!;
        const t = now();
        for (let k = 0; k < batch; k++) {
          const p = await store.capturePage(c.session, c.section, page);
          if (!p || p.text.length === 0) throw new Error(`page ${page} of the ${c.label} capture is missing`);
        }
        if (round >= 0) times[key].push((now() - t) / batch); // two rounds of warm-up
      }
    }
    await store.close();

    const row = (what: string, a: number[], f: number[], pages: string): Row => {
      const ratio = median(a.map((x, i) => x / f[i]!));
      return {
        benchmark: `page fetch, ${what}: ${fmtBytes(big.bytes)} vs ${fmtBytes(small.bytes)} request`,
        albedo: fmtMs(median(a)),
        floor: `${fmtMs(median(f))} (100 kB)`,
        ratio,
        target: "≤ 1.2×",
        met: ratio <= 1.2,
        raw: { rounds, fetchesPerSample: 20, pages, bigMs: a, smallMs: f },
      };
    };
    return [
      row("page 0", times.big0, times.small0, "0"),
      row(`last page (${big.last} vs ${small.last})`, times.bigLast, times.smallLast, `${big.last}/${small.last}`),
    ];
  } finally {
    await removeDir(dir);
  }
}
