// What a checkpoint knows of one path: its state (what a rewind puts back), the fingerprint
// a later walk compares to know it unchanged without reading it, and the limits that bound
// what is copied. Pure types and their zod schemas (what is read back from the state folder
// is outside input).
import { assertNever } from "../../record/types.js";
import { z } from "zod";

/** What was at a path. */
export type PathState =
  | { kind: "absent" }
  | { kind: "file"; hash: string; size: number; mode: number }
  | { kind: "dir"; mode: number }
  | { kind: "link"; target: string }
  /** something is there whose content is not kept: `what` it is ("a FIFO", "a file of 1.0 GB")
   * and `why` not ("over the 10.0 MB per-file cap"), for the sentence that names it */
  | { kind: "uncopied"; what: string; why: string };

export const pathStateSchema: z.ZodType<PathState> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("absent") }),
  z.object({ kind: z.literal("file"), hash: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative(), mode: z.number().int().nonnegative() }),
  z.object({ kind: z.literal("dir"), mode: z.number().int().nonnegative() }),
  z.object({ kind: z.literal("link"), target: z.string() }),
  z.object({ kind: z.literal("uncopied"), what: z.string(), why: z.string() }),
]);

/** One path in a walk of the workspace. */
export interface SnapEntry {
  s: PathState;
  /** size, mtime, ctime, inode and mode: equal in a later walk, the path is unchanged and
   * its hash is reused; absent when it must not be reused (it changed while it was read) */
  f?: string | undefined;
  /** a link that leads outside the workspace: where (its real path) and, when that is a
   * file, its fingerprint, so a change made through the link is named */
  o?: { real: string; f?: string | undefined } | undefined;
}

export const snapEntrySchema: z.ZodType<SnapEntry> = z.object({
  s: pathStateSchema,
  f: z.string().optional(),
  o: z.object({ real: z.string(), f: z.string().optional() }).optional(),
});

export interface Limits {
  /** a file larger than this is not copied (named if a turn changes it) */
  maxFileBytes: number;
  /** the files of one walk are copied up to this many bytes in all */
  maxTotalBytes: number;
  /** a walk stops after this many paths (a home folder as the workspace) */
  maxFiles: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxFiles: 100_000,
};

/** Whether two states are the same for a rewind: the same content and mode, the same link,
 * the same kind; an uncopied path by its fingerprints, since its content is not known. */
export function sameState(a: PathState, b: PathState, fa?: string, fb?: string): boolean {
  switch (a.kind) {
    case "absent":
      return b.kind === "absent";
    case "file":
      return b.kind === "file" && a.hash === b.hash && (a.mode & 0o7777) === (b.mode & 0o7777);
    case "dir":
      return b.kind === "dir" && (a.mode & 0o7777) === (b.mode & 0o7777);
    case "link":
      return b.kind === "link" && a.target === b.target;
    case "uncopied":
      return b.kind === "uncopied" && fa !== undefined && fa === fb;
    default:
      return assertNever(a, "path state");
  }
}

/** The state in words: "a file", "a folder", "a link to x", "nothing". */
export function describeState(s: PathState): string {
  switch (s.kind) {
    case "absent":
      return "nothing";
    case "file":
      return "a file";
    case "dir":
      return "a folder";
    case "link":
      return `a link to ${s.target}`;
    case "uncopied":
      return s.what;
    default:
      return assertNever(s, "path state");
  }
}
