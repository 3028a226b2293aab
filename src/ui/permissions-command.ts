// /permissions: what runs without asking (this session's grants, the config's allow and deny
// rules, the mode and the sandbox), and `/permissions revoke N` to take a session grant back.
import type { PermissionsList } from "../session/controller/permissions-list.js";
import type { Controller } from "../session/controller/types.js";
import { inertLine } from "./inert.js";
import type { Line, StyleName } from "./style.js";
import type { Transcript } from "./transcript.js";

interface ScreenHandle {
  controller: Controller;
  transcript: Transcript;
  render(): void;
  flash(text: string, style?: StyleName): void;
}

/** the listing: numbered session grants (the numbers revoke takes), then the config's rules */
export function permissionsLines(list: PermissionsList, mode: string, sandbox: string | undefined): Line[] {
  const out: Line[] = [[{ t: "Permissions", s: "heading" }, { t: ` mode ${mode}${sandbox ? ` · sandbox ${inertLine(sandbox)}` : ""}`, s: "dim" }]];
  out.push([{ t: "This session (allow for this session; /permissions revoke N takes one back)" }]);
  if (list.session.length === 0) out.push([{ t: "  none", s: "dim" }]);
  list.session.forEach((g, i) => out.push([{ t: `  ${String(i + 1).padStart(2)}  `, s: "key" }, { t: inertLine(g) }]));
  out.push([{ t: "The config file (\"allow\" and \"deny\"; edit the file and /reload to change them)" }]);
  if (list.allow.length === 0 && list.deny.length === 0) out.push([{ t: "  none", s: "dim" }]);
  for (const a of list.allow) out.push([{ t: "  allow ", s: "dim" }, { t: inertLine(a) }]);
  for (const d of list.deny) out.push([{ t: "  deny  ", s: "dim" }, { t: inertLine(d) }]);
  out.push([{ t: "The workspace keeps no permission rules: what it may do comes from the config and this session.", s: "dim" }]);
  return out;
}

/** /permissions [revoke N | revoke GRANT] */
export function permissionsCommand(s: ScreenHandle, arg: string): void {
  const c = s.controller;
  if (!c.permissions || !c.revokePermission) {
    s.flash("permissions are not kept in this screen", "err");
    return;
  }
  const a = arg.trim();
  if (a === "") {
    const info = c.info();
    s.transcript.lines(permissionsLines(c.permissions(), info.permission, info.sandbox));
    s.transcript.bottom();
    s.render();
    return;
  }
  const m = /^revoke\s+([\s\S]+)$/i.exec(a);
  if (!m) {
    s.flash(`/permissions takes nothing (the list) or revoke N (got "${inertLine(a)}")`, "err");
    return;
  }
  const which = m[1]!.trim();
  const grants = c.permissions().session;
  const n = /^\d+$/.test(which) ? Number(which) : undefined;
  const grant = n !== undefined ? grants[n - 1] : grants.find((g) => g === which);
  if (grant === undefined || !c.revokePermission(grant)) {
    s.flash(`no session grant "${inertLine(which)}" · /permissions lists them`, "err");
    return;
  }
  s.transcript.notice("info", `revoked for this session: ${inertLine(grant)} (it asks again)`);
  s.render();
}
