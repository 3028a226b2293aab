// The built bundle's module graph (dist/bundle/cli.cjs, scripts/bundle.mjs), read from
// esbuild's CommonJS output: every module reached by a lazy import() is a function
// `var init_x = __esm({ "path"() { …body… } })` that runs when first imported; a module's
// static imports are `init_y();` statements at the top of its body, and a lazy import is an
// expression `(init_y(), y_exports)` inside it; the entry's own body is the unwrapped code at
// the end, after its "// src/cli.ts" marker.
import fs from "node:fs";
import path from "node:path";

export const BUNDLE = path.resolve(import.meta.dirname, "../../dist/bundle/cli.cjs");

export interface LazyModule {
  init: string;
  path: string;
  /** its static imports: the init functions its body runs */
  imports: string[];
  /** packages its body requires when it runs (not inside a function it defines) */
  requires: string[];
  body: string;
}

export interface BundleGraph {
  byInit: Map<string, LazyModule>;
  byPath: Map<string, LazyModule>;
  entry: { imports: string[]; requires: string[] };
  text: string;
}

export function bundleGraph(file = BUNDLE): BundleGraph {
  const text = fs.readFileSync(file, "utf8");
  const byInit = new Map<string, LazyModule>();
  const byPath = new Map<string, LazyModule>();
  const header = /^var (init_\w+) = __esm\(\{\n {2}"([^"]+)"\(\) \{\n/gm;
  let m: RegExpExecArray | null;
  while ((m = header.exec(text))) {
    const end = text.indexOf("\n});\n", m.index);
    const body = text.slice(m.index + m[0].length, end);
    const mod: LazyModule = { init: m[1]!, path: m[2]!, imports: statementsOf(body, 4), requires: requiresOf(body, 4), body };
    byInit.set(mod.init, mod);
    byPath.set(mod.path, mod);
  }
  const entry = text.slice(text.lastIndexOf("\n// src/cli.ts\n"));
  return { byInit, byPath, entry: { imports: statementsOf(entry, 0), requires: requiresOf(entry, 0) }, text };
}

function statementsOf(body: string, indent: number): string[] {
  return [...body.matchAll(new RegExp(`^ {${indent}}(init_\\w+)\\(\\);$`, "gm"))].map((x) => x[1]!);
}

function requiresOf(body: string, indent: number): string[] {
  return [...body.matchAll(new RegExp(`^ {${indent}}(?:var )?\\w+ = (?:__toESM\\()?require\\("([^"]+)"\\)`, "gm"))].map((x) => x[1]!);
}

/** every module that runs with these (their static imports, transitively), and what they require */
export function closure(g: BundleGraph, roots: string[]): { paths: Set<string>; requires: Set<string> } {
  const seen = new Set<string>();
  const paths = new Set<string>();
  const requires = new Set<string>();
  const visit = (init: string): void => {
    if (seen.has(init)) return;
    seen.add(init);
    const mod = g.byInit.get(init);
    if (!mod) throw new Error(`${init} is not a module of the bundle`);
    paths.add(mod.path);
    for (const r of mod.requires) requires.add(r);
    for (const i of mod.imports) visit(i);
  };
  for (const r of roots) visit(r);
  return { paths, requires };
}

/** the module at `p`, or a failure that says to build */
export function moduleAt(g: BundleGraph, p: string): LazyModule {
  const mod = g.byPath.get(p);
  if (!mod) throw new Error(`${p} is not a lazily loaded module of ${BUNDLE} (run npm run build)`);
  return mod;
}
