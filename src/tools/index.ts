// The tools' public face: what the turn, the screen and headless mode import.
export type {
  PermissionAnswer,
  PermissionPolicy,
  PermissionRequest,
  ToolContext,
  ToolDef,
  ToolKind,
  ToolOutput,
  ToolPreview,
} from "./types.js";
export { builtinTools, PermissionMemory, runTool, toolSchemas } from "./run.js";
export { sanitizeForTerminal } from "./sanitize.js";
export { capText, cutNote, MAX_TOOL_OUTPUT } from "./cap.js";
export { resolvePath, type ResolvedPath } from "./paths.js";
