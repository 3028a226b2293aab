// The CLI as one bundle (issue 19): start → session loaded was mostly module compilation.
// Loaded as ~110 separate ES modules, Node resolved, read and compiled each, and `zod` alone
// (its index re-exports ~50 locale files) took ~57 ms to import. esbuild joins our code and the
// pure-JS packages into a few files and drops what nothing uses (zod's locales among it).
// Measured in one run against the blessed-box floor: session loaded 3.33× → 2.44×.
//
// Layout: dist/bundle/ holds the bundle and its chunks (the lazy imports stay lazy, as chunks);
// dist/cli.js (the package's bin) only imports it. The bundle sits two folders below the
// package root, as tsc's dist/<layer>/*.js do, so paths taken from import.meta.url
// ("../../keymaps", "../../package.json") mean the same in both builds.
//
// Left outside, loaded from node_modules as before: blessed (its optional requires of
// pty.js/term.js break a bundle), sqlite3 (native), undici (loaded after the session's frame),
// the MCP SDK (only when a server starts), cli-highlight (highlight.js requires its languages
// by name), gpt-tokenizer and tinyglobby (resolved by path at run time).
import { build } from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const out = path.join(dist, "bundle");

/**
 * zod's `z.locales` (and `core.locales`) re-export every language's messages: 368 kB of the
 * 755 kB zod brings, compiled at every start though nothing here calls z.config() with one.
 * English, the default, is imported by zod's schemas.js directly and stays; the namespace of
 * the others becomes empty.
 */
function zodEnglishOnly() {
  return {
    name: "zod-english-only",
    setup(b) {
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: "zod-locales", namespace: "zod-english-only" } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "zod-english-only" }, () => ({ contents: "export {};\n", loader: "js" }));
    },
  };
}

fs.rmSync(out, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // packages that ship both take their ES module build (tree-shaken; zod, marked)
  mainFields: ["module", "main"],
  external: ["blessed", "sqlite3", "undici", "@modelcontextprotocol/sdk", "cli-highlight", "gpt-tokenizer", "tinyglobby", "node-pty"],
  // commander (CommonJS) requires node:events etc.: an ES module bundle has no `require` of its own
  banner: { js: "import { createRequire as __albedoRequire } from 'node:module'; const require = __albedoRequire(import.meta.url);" },
  // maps to the .ts sources: `node --enable-source-maps dist/cli.js` gives stack traces in src/
  sourcemap: true,
  sourcesContent: false,
  legalComments: "none",
  plugins: [zodEnglishOnly()],
  logLevel: "warning",
});
fs.writeFileSync(
  path.join(dist, "cli.js"),
  '#!/usr/bin/env node\n// the bundle (scripts/bundle.mjs); tsc\'s dist/cli.js is the same program unbundled\nimport "./bundle/cli.js";\n',
);
fs.chmodSync(path.join(dist, "cli.js"), 0o755);
fs.rmSync(path.join(dist, "cli.js.map"), { force: true });
