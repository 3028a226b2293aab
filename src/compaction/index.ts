// The compaction layer's public surface: estimate, blur, summarise, prepare.
export * from "./tokens.js";
export * from "./estimate.js";
export * from "./microcompact.js";
export * from "./summary.js";
export * from "./prepare.js";
export type { Removed } from "./types.js";
