// Command prefixes: what "allow for this session" grants for a shell command, and what the
// config's "bash(npm test:*)" rules match. A line is split into its simple commands with
// shell-quote behind a stricter scan; a rule matches a line only when it matches every command
// in it, so `npm test; rm -rf ~` never passes as `npm test`. Whatever the scan is unsure of
// (substitutions, redirections, subshells, variables in command position, wrappers that run
// other commands) matches no prefix: a person is asked. Pure.
import { parse } from "shell-quote";

/** a rule on commands: these words start the command (`prefix`), or are all of it */
export interface CommandRule {
  words: readonly string[];
  /** "npm test:*": any command starting with these words; otherwise exactly them */
  prefix: boolean;
}

/** Programs that run another command given as their arguments: a prefix of them alone would
 * allow anything, so they are never taken as one (the exact command still can be). */
const WRAPPERS = new Set([
  "eval", "exec", "sudo", "doas", "su", "env", "xargs", "sh", "bash", "zsh", "dash", "ksh", "fish", "command",
  "builtin", "nohup", "time", "nice", "ionice", "timeout", "source", ".", "setsid", "stdbuf", "chroot", "unshare",
  "watch", "strace", "ltrace", "gdb", "busybox", "parallel", "script", "flock", "find", "fd", "awk", "perl",
  "python", "python3", "node", "ruby", "php", "lua", "trap", "coproc", "function", "npx", "bunx", "pnpx", "uvx",
  "pipx", "deno", "bun", "tsx", "ts-node",
]);

/** Programs whose second word is a sub-command, so the session's prefix keeps it (`npm test`,
 * not every npm command); for the rest the prefix is the program alone (`ls`, `cat`). */
const SUBCOMMANDS = new Set([
  "npm", "yarn", "pnpm", "git", "cargo", "go", "docker", "podman", "kubectl", "make", "pip", "pip3", "uv", "poetry",
  "gradle", "mvn", "dotnet", "rustup", "brew", "apt", "apt-get", "systemctl", "gh", "helm", "terraform", "mix",
  "bundle", "rake", "composer", "swift", "zig", "nix", "just", "task", "cmake", "ninja", "conda",
]);

/** ops that separate commands; any other op (redirection, subshell, process substitution) is unsure */
const SEPARATORS = new Set([";", "&&", "||", "|", "|&", "&"]);

/**
 * The simple commands of a line, each as its words, or undefined when the line holds
 * anything the scan cannot be sure of.
 */
export function simpleCommands(line: string): string[][] | undefined {
  // anything that runs text as a command, or hides where a command ends
  if (/[`]|\$\(|\$\{|<\(|>\(|\\\n|<<|[\x00-\x08\x0b-\x1f\x7f]/.test(line)) return undefined;
  const lines = line.split("\n");
  // a newline inside quotes would be cut in the wrong place: with quotes, one line only
  if (lines.length > 1 && /['"]/.test(line)) return undefined;
  const out: string[][] = [];
  for (const l of lines) {
    let tokens: ReturnType<typeof parse>;
    try {
      tokens = parse(l, (name: string) => `$${name}`);
    } catch {
      return undefined;
    }
    let cur: string[] = [];
    const end = () => {
      if (cur.length > 0) out.push(cur);
      cur = [];
    };
    for (const t of tokens) {
      if (typeof t === "string") {
        cur.push(t);
        continue;
      }
      if ("comment" in t) break; // the rest of this line is a comment
      if ("op" in t && t.op === "glob") {
        // a pattern as an argument is fine; as the command it could be anything
        if (cur.length === 0) return undefined;
        cur.push(t.pattern);
        continue;
      }
      if ("op" in t && SEPARATORS.has(t.op)) {
        end();
        continue;
      }
      return undefined;
    }
    end();
  }
  for (const c of out) {
    const first = c[0] ?? "";
    // a variable or an assignment in front (`$X args`, `LD_PRELOAD=… npm test`) runs what it says
    if (first.includes("$") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || first === "") return undefined;
  }
  return out;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.length <= words.length && prefix.every((w, i) => words[i] === w);
}

function ruleMatches(rule: CommandRule, words: readonly string[]): boolean {
  if (!rule.prefix) return rule.words.length === words.length && startsWith(words, rule.words);
  // a wrapper as the whole prefix would allow whatever follows it
  if (rule.words.length === 1 && WRAPPERS.has(rule.words[0] ?? "")) return rule.words.length === words.length && startsWith(words, rule.words);
  return startsWith(words, rule.words);
}

/** true when every simple command of the line is matched by one of the rules */
export function lineMatches(line: string, rules: readonly CommandRule[]): boolean {
  if (rules.length === 0) return false;
  const cmds = simpleCommands(line);
  if (!cmds || cmds.length === 0) return false;
  return cmds.every((words) => rules.some((r) => ruleMatches(r, words)));
}

/** true when any simple command of the line is matched (deny rules: one is enough); a line
 * the scan is unsure of is matched when a rule's words appear anywhere in it */
export function lineTouches(line: string, rules: readonly CommandRule[]): boolean {
  const cmds = simpleCommands(line);
  if (!cmds) return rules.some((r) => r.words.length > 0 && line.includes(r.words.join(" ")));
  return cmds.some((words) => rules.some((r) => ruleMatches(r, words)));
}

/**
 * What "allow for this session" grants for this line: a prefix per command (the program, and
 * its sub-command for programs that have them: `npm test`, `git diff`, `ls`), or, when the
 * scan is unsure or a program runs others, exactly this line.
 */
export function sessionRules(line: string): CommandRule[] | undefined {
  const cmds = simpleCommands(line);
  if (!cmds || cmds.length === 0) return undefined;
  const rules: CommandRule[] = [];
  for (const words of cmds) {
    const first = words[0] ?? "";
    if (WRAPPERS.has(first)) return undefined;
    const second = words[1];
    const sub = SUBCOMMANDS.has(first) && second !== undefined && /^[a-z][a-z0-9:_-]*$/.test(second);
    const rule: CommandRule = { words: sub ? [first, second] : [first], prefix: true };
    if (!rules.some((r) => r.words.join(" ") === rule.words.join(" "))) rules.push(rule);
  }
  return rules;
}

/** a rule as people write it: `npm test:*` (prefix) or `npm test` (exactly) */
export function formatRule(r: CommandRule): string {
  return `${r.words.join(" ")}${r.prefix ? ":*" : ""}`;
}

/** Reads `npm test:*` or `git status` (the inside of the config's `bash(…)`); undefined
 * when it holds no command. */
export function parseRule(text: string): CommandRule | undefined {
  const prefix = text.endsWith(":*");
  const body = prefix ? text.slice(0, -2) : text;
  const cmds = simpleCommands(body);
  if (!cmds || cmds.length !== 1) return undefined;
  return { words: cmds[0] ?? [], prefix };
}
