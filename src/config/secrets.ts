// What is a secret, and the one redactor (src/record/redaction.ts) that cuts every secret the
// run knows out of every path into the record (tool output, project context, prompts, answers,
// summaries, captures, tool schemas, error texts).
//
// The configured provider keys are secrets as they are. A value of an MCP server's entry is a
// secret when it is (candidates):
//   - the value of a `${VAR}` it expands, in any field (command, args, cwd, url, env, headers);
//   - the value of a header (the token after a scheme such as "Bearer" on its own too);
//   - the value of an env entry whose name looks like a credential (a name part TOKEN, KEY,
//     SECRET, PASSWORD, PASSWD, PASSPHRASE, PASS, PW, AUTH, AUTHORIZATION, CREDENTIAL, CREDS,
//     COOKIE, SESSION, PRIVATE, PAT, JWT, BEARER, DSN, or a compound such as APIKEY or
//     ACCESS_TOKEN, case-insensitive), or whose name the user's config lists in "mcpSecretEnv";
//   - the argument after (or in) a flag whose name looks like a credential ("--token X",
//     "--api-key=X");
// and a URL counts by its parts (user name, password, path segments, query values): its
// scheme and host are ordinary text.
// A candidate is cut out only when it looks generated (secretValue below; a whole value read
// from the environment is exempt from the shape test, since the file cannot choose it): at least 12
// characters, no whitespace, letters and digits mixed (or letters whose case changes at least
// every third letter), not a path that exists on this machine, and neither a part of the
// workspace path nor containing it. So a path, a word, a name or a number is never blanked
// from the record. A project's .mcp.json is held to more (fromProject): each value it marks must
// hold a run of 12 or more letters and digits that looks generated on its own, as keys do, and
// a value it reads from the environment counts whole only from a variable named like a
// credential (or in "mcpSecretEnv"), else by that shape. So an approved project file cannot
// blank "function", the workspace path, "x86_64-linux-gnu" or "localhost:3000" by naming it
// API_KEY, nor "xterm-256color" by expanding ${TERM}.
import path from "node:path";
import { REDACT_MIN_KEY } from "../record/redaction.js";

export { REDACT_MIN_KEY, REDACTED, KEY_PIECE, keyHoldsSecret, noRedaction, redactorFor, type Redactor } from "../record/redaction.js";

const CREDENTIAL_PARTS = new Set([
  "TOKEN",
  "KEY",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "PASS",
  "PW",
  "AUTH",
  "AUTHORIZATION",
  "CREDENTIAL",
  "CREDS",
  "COOKIE",
  "SESSION",
  "PRIVATE",
  "PAT",
  "JWT",
  "BEARER",
  "DSN",
]);
/** one word of a name written together: APIKEY, ACCESSTOKEN, CLIENTSECRET, AUTHTOKENS */
const CREDENTIAL_COMPOUND = /^(API|ACCESS|AUTH|CLIENT|REFRESH|SECRET|PRIVATE|SESSION|BEARER|ID)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIAL)S?$/;

/** Whether an env variable's (or a flag's) name looks like it holds a credential: one of its
 * parts (split at _ - . and at camelCase) is a credential word, singular or plural. PWD (the
 * working folder) is not one. */
export function credentialName(name: string): boolean {
  const parts = name.split(/[^A-Za-z0-9]+/).flatMap((p) => p.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []);
  return parts.some((raw) => {
    const p = raw.toUpperCase();
    return CREDENTIAL_PARTS.has(p) || (p.endsWith("S") && CREDENTIAL_PARTS.has(p.slice(0, -1))) || CREDENTIAL_COMPOUND.test(p);
  });
}

/** The pieces of a candidate that may be secrets: a URL's user name, password, path segments,
 * query values and fragment (raw and decoded); words separated by whitespace ("Bearer TOKEN");
 * anything else whole. */
export function secretParts(value: string): string[] {
  const out: string[] = [];
  const both = (s: string): void => {
    if (!s) return;
    out.push(s);
    try {
      const d = decodeURIComponent(s);
      if (d !== s) out.push(d);
    } catch {
      // not percent-encoding after all: the raw text is what can appear
    }
  };
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*$/.test(value)) {
    let u: URL | undefined;
    try {
      u = new URL(value);
    } catch {
      u = undefined;
    }
    if (u) {
      both(u.username);
      both(u.password);
      for (const seg of u.pathname.split("/")) both(seg);
      for (const pair of u.search.slice(1).split("&")) both(pair.slice(pair.indexOf("=") + 1));
      both(u.hash.slice(1));
      return out;
    }
  }
  if (/\s/.test(value)) return value.split(/\s+/).filter((w) => w.length > 0);
  return [value];
}

export interface SecretContext {
  /** the workspace: no part of its path is ever cut */
  workspace: string;
  /** the home folder, for "~/…" */
  home?: string;
  /** whether a path exists on this machine (the I/O stays with the caller) */
  exists(p: string): boolean;
  /** the values are a project's (.mcp.json, not the user's own file): each must hold a
   * generated run (holdsGeneratedRun) to count */
  fromProject?: boolean;
}

/** Whether a value looks generated: letters and digits mixed, or letters whose case changes at
 * least every third letter (a key, not a CamelCase name). */
function looksGenerated(v: string): boolean {
  const lower = /[a-z]/.test(v);
  const upper = /[A-Z]/.test(v);
  if ((lower || upper) && /[0-9]/.test(v)) return true;
  if (!(lower && upper)) return false;
  const letters = v.replace(/[^A-Za-z]/g, "");
  let changes = 0;
  for (let i = 1; i < letters.length; i++) if ((letters[i]! < "a") !== (letters[i - 1]! < "a")) changes++;
  return changes * 3 >= letters.length;
}

/** Whether a value holds a run of 12 or more letters and digits that looks generated on its
 * own, as a key's body does ("ghp_" + 36, a hex digest, a UUID's last group): text made of
 * short words and numbers ("x86_64-linux-gnu", "localhost:3000", a timestamp) holds none. */
function holdsGeneratedRun(v: string): boolean {
  return (v.match(/[A-Za-z0-9]{12,}/g) ?? []).some(looksGenerated);
}

/** Whether the value, or one of its :;,= separated parts ("PATH" lists, "unix:path=/run/…"),
 * names a file or folder that exists. */
function namesPath(v: string, ctx: SecretContext): boolean {
  return [v, ...v.split(/[:;,=]/)].some((c) => {
    if (c.length === 0 || c.includes("\0")) return false;
    const p = c === "~" || c.startsWith("~/") ? (ctx.home ? path.join(ctx.home, c.slice(1)) : undefined) : path.resolve(ctx.workspace, c);
    return p !== undefined && ctx.exists(p);
  });
}

/** The rule for one candidate piece (see the head of this file). `anyShape`: a whole value read
 * from the environment, which the file that names it cannot choose, counts without looking
 * generated (a passphrase of plain words is still a secret). */
export function secretValue(v: string, ctx: SecretContext, anyShape = false): boolean {
  if (v.length < REDACT_MIN_KEY || /\s/.test(v)) return false;
  if (!anyShape && !(looksGenerated(v) && (!ctx.fromProject || holdsGeneratedRun(v)))) return false;
  const ws = ctx.workspace;
  if (ws.includes(v) || (ws.length >= 4 && v.includes(ws))) return false;
  return !namesPath(v, ctx);
}

/** The secrets among candidates: their parts that pass the rule, each once. `expanded` are
 * whole values read from the environment: one that is a single word counts whatever its shape;
 * a URL or several words count by their parts, as any candidate. */
export function secretsAmong(candidates: readonly string[], ctx: SecretContext, expanded: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const c of candidates) for (const p of secretParts(c)) if (secretValue(p, ctx)) out.add(p);
  for (const c of expanded) {
    const parts = secretParts(c);
    const whole = parts.length === 1 && parts[0] === c;
    for (const p of parts) if (secretValue(p, ctx, whole)) out.add(p);
  }
  return [...out];
}
