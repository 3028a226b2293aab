// The built bundle's module graph, read from esbuild's readable CommonJS output
// (dist/graph/cli.cjs, which scripts/bundle.mjs minifies into the shipped dist/bundle/cli.cjs): every module reached by a lazy import() is a function
// `var init_x = __esm({ "path"() { …body… } })` that runs when first imported; a module's
// static imports are `init_y();` statements at the top of its body, and a lazy import is an
// expression `(init_y(), y_exports)` inside it; what runs at load (the entry and the modules
// it imports unwrapped) is the code outside every wrapper.
import fs from "node:fs";
import path from "node:path";

export const BUNDLE = path.resolve(import.meta.dirname, "../../dist/bundle/cli.cjs");
/** the same code before minification (scripts/bundle.mjs): the graph is read from this one */
export const GRAPH = path.resolve(import.meta.dirname, "../../dist/graph/cli.cjs");

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
  /** what runs at load: its init_x() calls, its requires, and the modules in it unwrapped */
  entry: { imports: string[]; requires: string[]; paths: string[] };
  text: string;
}

export function bundleGraph(file = GRAPH): BundleGraph {
  const text = fs.readFileSync(file, "utf8");
  const byInit = new Map<string, LazyModule>();
  const byPath = new Map<string, LazyModule>();
  // what runs at load: the text outside every wrapped module (the entry, the modules it
  // imports unwrapped, and its init_x() calls), wherever esbuild placed it
  let topLevel = "";
  let from = 0;
  const wrapper = /^var (init_\w+) = __esm\(\{\n {2}"([^"]+)"\(\) \{\n|^var require_\w+ = __commonJS\(\{\n/gm;
  let m: RegExpExecArray | null;
  while ((m = wrapper.exec(text))) {
    const end = text.indexOf("\n});\n", m.index);
    if (end < 0) throw new Error(`a wrapped module at ${m.index} of ${file} does not end`);
    topLevel += text.slice(from, m.index);
    from = end + "\n});\n".length;
    wrapper.lastIndex = from;
    if (m[1] === undefined) continue; // a CommonJS package esbuild wrapped: required by name, not an init
    const body = text.slice(m.index + m[0].length, end);
    const mod: LazyModule = { init: m[1], path: m[2]!, imports: statementsOf(body, 4), requires: requiresOf(body, 4), body };
    byInit.set(mod.init, mod);
    byPath.set(mod.path, mod);
  }
  topLevel += text.slice(from);
  // a wrapped module's function declarations are hoisted out of its wrapper under its marker,
  // and run nothing; a marker of a module with no wrapper is a module that runs at load
  const paths = [...new Set([...topLevel.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((x) => x[1]!))].filter((p) => !byPath.has(p));
  return { byInit, byPath, entry: { imports: statementsOf(topLevel, 0), requires: requiresOf(topLevel, 0), paths }, text };
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
