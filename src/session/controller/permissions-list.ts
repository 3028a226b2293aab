// What /permissions lists: this session's "allow for this session" grants and the config's
// allow and deny rules, as the words the config and the box use. Pure.
import type { PermissionMemory } from "../../tools/run.js";
import type { CommandRule } from "../../tools/command-rules.js";
import type { PermissionRules } from "../../tools/types.js";

export interface PermissionsList {
  /** this session's grants, named as revoke() takes them ("bash(npm test:*)", "edit") */
  session: string[];
  /** the config file's "allow" and "deny", as written there */
  allow: string[];
  deny: string[];
}

/** the config's spelling of a command rule (command-rules.ts formatRule, kept out of the
 * first frame's imports) */
function ruleText(r: CommandRule): string {
  return `bash(${r.words.join(" ")}${r.prefix ? ":*" : ""})`;
}

export function permissionsList(memory: PermissionMemory | undefined, rules: PermissionRules | undefined): PermissionsList {
  return {
    session: memory?.grants() ?? [],
    allow: rules ? [...rules.allowTools, ...rules.allow.map(ruleText)] : [],
    deny: rules ? [...rules.denyTools, ...rules.deny.map(ruleText)] : [],
  };
}
