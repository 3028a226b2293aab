// The CLI as one bundle: start → session loaded was mostly module compilation.
// Loaded as ~110 separate ES modules, Node resolved, read and compiled each, and `zod` alone
// (its index re-exports ~50 locale files) took ~57 ms to import. esbuild joins our code and the
// pure-JS packages into a few files and drops what nothing uses (zod's locales among it).
// Measured in one run against the blessed-box floor: session loaded 3.33× → 2.44×.
//
// Layout: dist/bundle/cli.cjs is the bundle, one CommonJS file; dist/cli.js (the package's bin,
// src/launch/main.ts) runs it through V8's code cache: with the compiled code saved by an
// earlier run, session loaded went from ~1.85× to ~1.2× the floor. The bundle sits two
// folders below the package root, as tsc's dist/<layer>/*.js do, so paths taken from
// import.meta.url ("../../keymaps", "../../package.json") mean the same in both builds.
//
// blessed is in the bundle too, so its ~40 files come from the code cache instead of being
// compiled at every start (first usable frame ~25 ms sooner); its Terminal widget's requires
// of pty.js and term.js, never run here, stay requires.
//
// Left outside, loaded from node_modules: sqlite3 (native), undici (loaded after the session's frame),
// the MCP SDK (only when a server starts), cli-highlight (highlight.js requires its languages
// by name), gpt-tokenizer and tinyglobby (resolved by path at run time).
import { build } from "esbuild";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const out = path.join(dist, "bundle");
const graphDir = path.join(dist, "graph");

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

/**
 * blessed loads its widgets by name (`require('./widgets/' + file)`); with the extension
 * written out, esbuild bundles the folder's files as a map the same call reads.
 */
function blessedWidgetsByName() {
  return {
    name: "blessed-widgets-by-name",
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/]blessed[\\/]lib[\\/]widget\.js$/ }, (args) => {
        const text = fs.readFileSync(args.path, "utf8");
        const call = "require('./widgets/' + file)";
        if (!text.includes(call)) throw new Error(`blessed's widget.js no longer has ${call}: see scripts/bundle.mjs`);
        return { contents: text.replace(call, "require('./widgets/' + file + '.js')"), loader: "js" };
      });
    },
  };
}

fs.rmSync(out, { recursive: true, force: true });
fs.rmSync(graphDir, { recursive: true, force: true });
const bundleFile = path.join(out, "cli.cjs");
const graphFile = path.join(graphDir, "cli.cjs");
await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outfile: graphFile,
  bundle: true,
  // One CommonJS file, not ES modules: V8's code cache (src/launch/code-cache.ts) is for
  // scripts, and Node 20 has none for ES modules. The lazy imports stay lazy: esbuild turns
  // each into a module whose body runs when it is first imported.
  format: "cjs",
  platform: "node",
  target: "node20",
  // import() of a package left outside (undici, cli-highlight) becomes a require() at the same
  // moment: an import() in a script run by vm.Script needs a flag on Node 20
  supported: { "dynamic-import": false },
  // packages that ship both take their ES module build (tree-shaken; zod, marked)
  mainFields: ["module", "main"],
  external: ["term.js", "pty.js", "sqlite3", "undici", "@modelcontextprotocol/sdk", "cli-highlight", "gpt-tokenizer", "tinyglobby", "node-pty"],
  // the modules' own URL, as `import.meta.url` gave it in the ES build
  define: { "import.meta.url": "__albedoModuleUrl" },
  banner: { js: "var __albedoModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  // maps to the .ts sources
  sourcemap: true,
  sourcesContent: false,
  legalComments: "none",
  plugins: [zodEnglishOnly(), blessedWidgetsByName()],
  logLevel: "warning",
});

// What ships is the same code without its whitespace and with shorter syntax (2.9 MB → 1.9
// MB): every start reads the whole text, copies it into V8 and keeps it for the run, and on a
// small machine that took ~20 ms before the first frame. Names stay (commander and zod print
// class names in their messages). The readable bundle stays in dist/graph, unshipped: the
// tests read the module graph from it, and the map chains through it to src/.
await build({
  absWorkingDir: root,
  entryPoints: [graphFile],
  outfile: bundleFile,
  bundle: false,
  platform: "node",
  target: "node20",
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: "none",
  logLevel: "warning",
});

// Every character outside ASCII written as an escape (they are in comments and regular
// expressions that esbuild leaves as they are): V8 keeps a script's source for as long as the
// program runs, and one such character makes it two bytes a character, 2.4 MB more. The bin
// reads an all-ASCII bundle as Latin-1, straight into a one-byte string (code-cache.ts).
{
  const text = fs.readFileSync(bundleFile, "utf8");
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (ascii !== text) fs.writeFileSync(bundleFile, ascii);
}

// blessed, bundled, reads its fallback terminfo entries (a TERM this system has no entry for)
// from `__dirname + "/../usr/"`: the bundle's folder's sibling here, as in its own package
{
  const usr = path.join(dist, "usr");
  fs.rmSync(usr, { recursive: true, force: true });
  fs.mkdirSync(usr);
  const from = path.join(root, "node_modules", "blessed", "usr");
  for (const f of fs.readdirSync(from)) if (f !== "fonts") fs.copyFileSync(path.join(from, f), path.join(usr, f));
}

// The build's mark, the bundle's last line: its content hash. The bin keys the code cache on
// it (with the file's size and time), read from the same text it compiles, so a start never
// runs another build's code, whatever the bin beside it.
const buildId = crypto.createHash("sha256").update(fs.readFileSync(bundleFile)).digest("hex").slice(0, 32);
fs.appendFileSync(bundleFile, `//# albedo-build ${buildId}\n`);

// The bin: sets V8's flags and runs the bundle through the code cache.
fs.rmSync(path.join(dist, "cli.js.map"), { force: true });
await build({
  absWorkingDir: root,
  entryPoints: ["src/launch/main.ts"],
  outfile: path.join(dist, "cli.js"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  banner: { js: "#!/usr/bin/env node\n// the bin (src/launch/main.ts): runs dist/bundle/cli.cjs, the CLI's bundle (scripts/bundle.mjs)" },
  legalComments: "none",
  logLevel: "warning",
});
fs.chmodSync(path.join(dist, "cli.js"), 0o755);
