// The Messages API version albedo-tui sends (docs/providers.md says why this one).
export const ANTHROPIC_VERSION = "2023-06-01";
