// The streaming floor: a trivial program that writes a file's bytes (the exact output
// albedo-tui wrote to the terminal while streaming) straight to the pty in one write, when
// Enter arrives. What it costs is the terminal's share of the work: albedo-tui's time above
// it is its own.
"use strict";
const fs = require("node:fs");

const bytes = fs.readFileSync(process.argv[2]);
process.stdin.setRawMode(true);
process.stdin.on("data", (d) => {
  if (d.includes(0x03)) process.exit(0); // Ctrl-C
  if (d.includes(0x0d)) process.stdout.write(bytes);
});
// announce readiness, so the harness sends Enter only once stdin is in raw mode
process.stdout.write("floor ready\r\n");
