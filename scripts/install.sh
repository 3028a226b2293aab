#!/bin/sh
# Installs albedo-tui from this clone as a copy, not a link, so the clone may be moved or
# deleted afterwards: build here, pack, and install the packed tarball globally into PREFIX
# (default ~/.local; the command is PREFIX/bin/albedo-tui). Works from any current folder.
#
# The build needs the devDependencies (tsc, esbuild) but none of their native parts except
# esbuild's binary: they are installed without running install scripts, so the test-only
# node-pty is never compiled, nor sqlite3 here (esbuild leaves it outside the bundle). The
# global install takes only "dependencies"; sqlite3 is built there, from a prebuilt binary
# when one is reachable, else from source (the slow part: a few minutes).
#
# Usage: sh scripts/install.sh [PREFIX]
set -eu

prefix=${1:-"$HOME/.local"}
case $prefix in
  /*) ;;
  *) prefix="$(pwd)/$prefix" ;;
esac
cd "$(dirname "$0")/.."

# node-gyp fetches Node's headers from nodejs.org unless told where they are; the headers
# installed beside this node serve when their version is this node's (no network needed)
if [ -z "${npm_config_nodedir:-}" ]; then
  nodedir=$(node -e '
    const path = require("path"), fs = require("fs");
    const dir = path.resolve(process.execPath, "../..");
    try {
      const h = fs.readFileSync(path.join(dir, "include/node/node_version.h"), "utf8");
      const v = ["MAJOR", "MINOR", "PATCH"].map((k) => h.match(new RegExp("define NODE_" + k + "_VERSION (\\d+)"))[1]).join(".");
      if (v === process.versions.node) process.stdout.write(dir);
    } catch {}
  ')
  if [ -n "$nodedir" ]; then
    npm_config_nodedir=$nodedir
    export npm_config_nodedir
  fi
fi

npm ci --ignore-scripts --no-audit --no-fund
npm rebuild esbuild
npm run build

pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
npm pack --silent --pack-destination "$pack" >/dev/null
# npm 11.16 and later ask that a global install name the packages whose install scripts may
# run (npm 12 runs no others); sqlite3's builds its binding. Older npm would warn of the flag.
allow=
v=$(npm --version)
major=${v%%.*}
minor=${v#*.}
minor=${minor%%.*}
if [ "$major" -gt 11 ] || { [ "$major" -eq 11 ] && [ "$minor" -ge 16 ]; }; then
  allow=--allow-scripts=sqlite3
fi
npm install --global --prefix "$prefix" --no-audit --no-fund $allow "$pack"/albedo-tui-*.tgz

echo "albedo-tui installed: $prefix/bin/albedo-tui"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "$prefix/bin is not on your PATH; to add it (bash, zsh), then open a new terminal:"
     echo "  echo 'export PATH=\"$prefix/bin:\$PATH\"' >> ~/.\${SHELL##*/}rc" ;;
esac
