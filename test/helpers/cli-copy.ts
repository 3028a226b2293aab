// The built package copied where any user can read it, for running the CLI as another user.
// A checkout inside a folder only its owner can enter (a home folder of mode 0700) cannot be
// read by that user, so the copy holds what an install holds: package.json's "files", and the
// packages its "dependencies" need, resolved as Node resolves them from the checkout's
// node_modules, with nothing of the devDependencies.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

interface Manifest {
  files?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const manifest = (dir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest;

/** The folder of package `name` as `require` finds it from `from`: the nearest node_modules up to `top`. */
function resolvePackage(from: string, name: string, top: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (dir === top || dir === path.dirname(dir)) return undefined;
  }
}

/**
 * Copies the package into a new folder of mode 0755 (files and folders readable by all) and
 * returns it; its `dist/cli.js` is the bin. A dependency that is missing is an error; a missing
 * optional or peer dependency is skipped, as npm's install skips it.
 */
export function readableCopy(): string {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), "albedo-cli-copy-"));
  const own = manifest(root);
  for (const entry of ["package.json", ...(own.files ?? [])]) fs.cpSync(path.join(root, entry), path.join(dest, entry), { recursive: true });

  // node_modules may be a link (a worktree's); resolve in its real folder, as Node does
  const modules = fs.realpathSync(path.join(root, "node_modules"));
  const top = path.dirname(modules);
  const seen = new Set<string>();
  const visit = (from: string, m: Manifest): void => {
    const wanted: [string, boolean][] = [
      ...Object.keys(m.dependencies ?? {}).map((n): [string, boolean] => [n, true]),
      ...Object.keys({ ...m.optionalDependencies, ...m.peerDependencies }).map((n): [string, boolean] => [n, false]),
    ];
    for (const [name, required] of wanted) {
      const dir = resolvePackage(from, name, top);
      if (!dir) {
        if (required) throw new Error(`readableCopy: ${name} (needed from ${from}) is not installed`);
        continue;
      }
      const real = fs.realpathSync(dir);
      if (seen.has(real)) continue;
      seen.add(real);
      // each package's own nested node_modules is copied by this walk, only as far as it is needed
      const nested = path.join(real, "node_modules");
      fs.cpSync(real, path.join(dest, "node_modules", path.relative(modules, real)), { recursive: true, filter: (src) => src !== nested });
      visit(real, manifest(real));
    }
  };
  visit(top, own);

  // whatever the umask and the sources' modes were, every user may read it and enter its folders
  const open = (p: string): void => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      fs.chmodSync(p, 0o755);
      for (const e of fs.readdirSync(p)) open(path.join(p, e));
    } else fs.chmodSync(p, st.mode & 0o111 ? 0o755 : 0o644);
  };
  open(dest);
  return dest;
}
