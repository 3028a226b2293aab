// What a project's MCP server would start, shown before it is approved: every field that
// decides what runs, in full and as the file writes it (`${VAR}` unexpanded), each value as a
// JSON string whose invisible characters are written as escapes (visibleJson), so what a
// person approves is exactly what runs. A value too long to show whole is cut with a mark
// that says so, and each variable known to make a program load code gets a warning line.
import path from "node:path";
import { visibleEscape } from "../text/sanitize.js";
import type { ServerSpec } from "./config.js";

/** the most characters of one value shown; a longer one is cut there, and says so */
const MAX_SHOWN_VALUE = 4000;

/**
 * Environment variables that make a program load or run code other than its own (or fetch
 * it from elsewhere): a project file that sets one can run anything once approved, whatever
 * its command looks like. By exact name, or by prefix (a name ending in "*").
 */
const CODE_LOADING_ENV: readonly { names: readonly string[]; why: string }[] = [
  { names: ["NODE_OPTIONS"], why: "node loads the modules it names (--require, --import) before the server's own code" },
  { names: ["NODE_PATH"], why: "node looks for modules there" },
  { names: ["ELECTRON_RUN_AS_NODE"], why: "an Electron program runs as node, taking node's options" },
  { names: ["LD_*"], why: "the dynamic loader loads the libraries it names (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH) into every program" },
  { names: ["DYLD_*"], why: "the macOS dynamic loader loads the libraries it names into every program" },
  { names: ["GCONV_PATH"], why: "the C library loads character-set modules from there" },
  { names: ["BASH_ENV", "ENV"], why: "a shell runs that file before anything else" },
  { names: ["BASH_FUNC_*"], why: "bash takes it as a function that replaces a command" },
  { names: ["PROMPT_COMMAND"], why: "bash runs it" },
  { names: ["ZDOTDIR"], why: "zsh reads its start files from there" },
  { names: ["PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONWARNINGS", "PYTHONBREAKPOINT"], why: "Python imports or runs code it names" },
  { names: ["PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB"], why: "Perl loads the modules it names" },
  { names: ["RUBYOPT", "RUBYLIB"], why: "Ruby loads the libraries it names" },
  { names: ["LUA_INIT", "LUA_PATH", "LUA_CPATH"], why: "Lua runs or loads the code it names" },
  { names: ["PHPRC", "PHP_INI_SCAN_DIR"], why: "PHP reads settings (auto_prepend_file) from there" },
  { names: ["R_PROFILE", "R_PROFILE_USER"], why: "R runs that file at start" },
  { names: ["JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH"], why: "Java loads the agents or classes it names" },
  { names: ["DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER*", "COR_PROFILER*"], why: ".NET loads the assemblies it names" },
  { names: ["GOFLAGS", "GOPROXY"], why: "go runs the commands (-toolexec) or fetches the modules it names" },
  { names: ["RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER"], why: "cargo runs the program it names" },
  { names: ["GIT_*"], why: "git runs the commands it names (GIT_SSH_COMMAND, GIT_EXEC_PATH, GIT_CONFIG_* hooks)" },
  { names: ["npm_config_*", "NPM_CONFIG_*"], why: "npm and npx take settings from it (where packages come from, the shell scripts run in)" },
  { names: ["PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_FIND_LINKS"], why: "pip and uv (uvx) install packages from there" },
  { names: ["EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "BROWSER"], why: "programs run the command it names" },
  { names: ["PATH"], why: "a command given by name is looked up there: it decides which program runs" },
  { names: ["HOME", "XDG_CONFIG_HOME"], why: "programs read their start files and settings (.npmrc, .gitconfig, shell profiles) from there" },
];

/** why a variable makes programs load code, when it is one of CODE_LOADING_ENV */
function codeLoadingReason(name: string): string | undefined {
  for (const g of CODE_LOADING_ENV) {
    for (const n of g.names) {
      const hit = n.endsWith("*") ? name.startsWith(n.slice(0, -1)) : name === n;
      // npm reads its variables in any case
      if (hit || (n.startsWith("npm_config_") && name.toLowerCase().startsWith("npm_config_"))) return g.why;
    }
  }
  return undefined;
}

/** One value as a JSON string, every character one cannot see escaped, cut with a mark past
 * MAX_SHOWN_VALUE characters shown. */
function shownValue(raw: string, file: string): string {
  const out: string[] = [];
  let used = 0;
  let i = 0;
  const chars = [...raw];
  for (; i < chars.length; i++) {
    const c = visibleEscape(JSON.stringify(chars[i]).slice(1, -1), { plainBackslash: true });
    if (used + c.length > MAX_SHOWN_VALUE) break;
    out.push(c);
    used += c.length;
  }
  if (i === chars.length) return `"${out.join("")}"`;
  const left = chars.length - i;
  return `"${out.join("")}" [CUT: ${left.toLocaleString("en-US")} more character${left === 1 ? "" : "s"} of this value are not shown; read ${visibleEscape(file)} before approving]`;
}

/**
 * The lines /mcp shows for a server waiting for approval: what it would start or connect
 * to, field by field, and a warning for each variable that loads code. Display-ready: every
 * value from the file is escaped here.
 */
export function launchLines(spec: ServerSpec, workspace: string): string[] {
  const l = spec.launch;
  const v = (s: string): string => shownValue(s, spec.file);
  const name = visibleEscape(spec.name);
  const file = visibleEscape(path.basename(spec.file));
  const lines: string[] = [];
  if (l.command !== undefined) {
    lines.push(`  ${name} would run, once approved (as ${file} writes it; \${VAR} is read from the environment when it starts):`);
    lines.push(`    command: ${v(l.command)}`);
    lines.push(`    args: [${l.args.map(v).join(", ")}]`);
    if (l.cwd === undefined) lines.push(`    cwd: the workspace, ${visibleEscape(workspace)}`);
    else if (l.cwd.includes("${")) lines.push(`    cwd: ${v(l.cwd)} (from the environment when it starts)`);
    else lines.push(`    cwd: ${v(l.cwd)} (${visibleEscape(path.resolve(workspace, l.cwd))})`);
    for (const [k, val] of l.env) lines.push(`    env ${v(k)}: ${v(val)}`);
    for (const [k] of l.env) {
      const why = codeLoadingReason(k);
      if (why) lines.push(`    ! env ${visibleEscape(k)} loads code: ${why}. Approve only if you expect this.`);
    }
  } else if (l.url !== undefined) {
    lines.push(`  ${name} would connect, once approved (as ${file} writes it; \${VAR} is read from the environment when it starts):`);
    lines.push(`    url: ${v(l.url)}`);
    for (const [k, val] of l.headers) lines.push(`    header ${v(k)}: ${v(val)}`);
  }
  return lines;
}
