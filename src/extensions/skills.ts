// Skills: folders holding a SKILL.md (front matter `name` and `description`, then the
// instructions), in the workspace's .claude/skills and .agents/skills and the config folder's
// skills/. Every request carries only their names and descriptions, as one context item;
// the instructions are read when the model asks for them with the skill tool, so a skill
// costs a line until it is used.
import path from "node:path";
import { z } from "zod";
import type { ContextItem } from "../provider/types.js";
import type { ToolDef } from "../tools/types.js";
import { listFiles, plainLine, readFound, splitFrontMatter, validNamePart, type FoundFile, type Origin } from "./workflow-files.js";

export interface Skill {
  name: string;
  description: string;
  /** the SKILL.md, as shown; its folder may hold files the instructions name */
  file: string;
  origin: Origin;
  found: FoundFile;
}

export const WORKSPACE_SKILL_DIRS = [".claude/skills", ".agents/skills"] as const;

/** the context item's source: the inspector names the section so */
export const SKILLS_SOURCE = "skills";

export function loadSkills(workspace: string, configFolder: string | undefined): { skills: Skill[]; problems: string[] } {
  const problems: string[] = [];
  const byName = new Map<string, Skill>();
  const origins: Array<{ origin: Origin; dir: string }> = WORKSPACE_SKILL_DIRS.map((dir) => ({ origin: { kind: "workspace", workspace }, dir }));
  if (configFolder) origins.push({ origin: { kind: "user" }, dir: path.join(configFolder, "skills") });
  for (const { origin, dir } of origins) {
    for (const f of listFiles(origin, dir, (n) => n === "SKILL.md", problems)) {
      const parts = f.rel.split("/");
      // one folder per skill, its SKILL.md directly in it
      if (parts.length !== 2) continue;
      const read = readFound(origin, f, "skill file");
      if ("problem" in read) {
        problems.push(read.problem);
        continue;
      }
      const fm = splitFrontMatter(read.text);
      if (fm.problem) problems.push(`${f.file}: ${fm.problem}`);
      const given = plainLine(fm.fields["name"], 64);
      const name = given || (parts[0] ?? "");
      if (!validNamePart(name)) {
        problems.push(`${plainLine(f.file)} was skipped: a skill's name takes letters, digits, "-", "_" and "." only`);
        continue;
      }
      const description = plainLine(fm.fields["description"], 1024);
      if (!description) {
        problems.push(`${f.file} was skipped: it has no description in its front matter`);
        continue;
      }
      if (byName.has(name)) {
        problems.push(`${f.file} was skipped: the skill "${name}" is already ${byName.get(name)!.file}`);
        continue;
      }
      byName.set(name, { name, description, file: f.file, origin, found: f });
    }
  }
  return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}

/** The one context item every request carries: each skill's name and description. */
export function skillsItem(skills: readonly Skill[]): ContextItem | undefined {
  if (skills.length === 0) return undefined;
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return {
    source: SKILLS_SOURCE,
    text: `Skills: instructions for particular tasks. Before a task one of these fits, call the skill tool with its name to read its instructions.\n${lines.join("\n")}`,
  };
}

/** The skill's instructions as the tool returns them, read now (through the same boundary). */
export function readSkillBody(skill: Skill): { text: string } | { problem: string } {
  const read = readFound(skill.origin, skill.found, "skill file");
  if ("problem" in read) return read;
  const fm = splitFrontMatter(read.text);
  return { text: `Skill "${skill.name}" (${skill.file}; files it names are in ${path.dirname(skill.file)}):\n\n${fm.body.trim()}` };
}

const input = z.object({ name: z.string().min(1).max(100).describe("The skill's name, as listed in the skills section") });

/** The skill tool: returns a listed skill's instructions. */
export function skillTool(skills: () => readonly Skill[]): ToolDef<typeof input> {
  return {
    name: "skill",
    kind: "read",
    description: "Read the instructions of one of the listed skills, by name. Call it before doing a task a skill fits.",
    input,
    summarize: (i) => `skill ${plainLine(i.name, 80)}`,
    run(i) {
      const list = skills();
      const s = list.find((k) => k.name === i.name);
      if (!s) return Promise.resolve({ output: `no skill named "${plainLine(i.name, 80)}"; the skills are: ${list.map((k) => k.name).join(", ") || "(none)"}`, isError: true });
      const r = readSkillBody(s);
      return Promise.resolve("problem" in r ? { output: r.problem, isError: true } : { output: r.text, isError: false });
    },
  };
}
