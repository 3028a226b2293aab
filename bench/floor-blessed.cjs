// The start-up floor: the least a blessed program can do — load blessed, open a full screen,
// draw one bordered box with a line of text, and wait for keys. Same library, same terminal,
// same harness as albedo-tui, so the ratio shows only what albedo-tui adds.
"use strict";
const blessed = require("blessed");

const screen = blessed.screen({ smartCSR: true, fullUnicode: true });
blessed.box({
  parent: screen,
  top: "center",
  left: "center",
  width: 40,
  height: 5,
  border: { type: "line" },
  content: "floor ready",
});
screen.key(["C-c", "q"], () => process.exit(0));
screen.render();
