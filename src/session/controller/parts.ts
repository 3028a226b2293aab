// What the controller needs only to run a turn, compact, or work out the next request's
// figure: the providers' adapters, the tools and the turn. The controller imports this module
// lazily (a chunk of its own in the bundle), so the session's frame does not wait for them to
// be compiled; `App.ready()` loads it, and everything that uses it awaits that.
export { createProvider, serverMemory } from "../../provider/create.js";
export { builtinTools, PermissionMemory, toolSchemas } from "../../tools/run.js";
export { runTurn } from "../turn/turn.js";
export { runShellCommand } from "../turn/shell-command.js";
export { promptOverWindow } from "../turn/window.js";
export { prepare, summarize, SUMMARY_REQUEST_NOTE } from "../turn/compact.js";
export { captureRequest } from "../../context/capture.js";
export { Checkpoints } from "../checkpoints/checkpoints.js";
