// An MCP tool's name on the wire: mcp__<server>__<tool>, with every character a provider
// refuses replaced (both accept [A-Za-z0-9_-]; OpenAI takes at most 64). Two tools that end up
// with the same name are a collision: the later one is refused by name, never renamed
// silently, so a call always reaches the tool it names.

const MAX_TOOL_NAME = 64;

export function sanitizeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_");
}

function wireName(server: string, tool: string): string {
  return `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`.slice(0, MAX_TOOL_NAME);
}

interface NamedTool<T> {
  wire: string;
  server: string;
  tool: string;
  value: T;
}

/** Names every tool; a name taken already is refused with a sentence that says by whom. */
export function assignNames<T>(entries: ReadonlyArray<{ server: string; tool: string; value: T }>): { named: NamedTool<T>[]; refused: { server: string; message: string }[] } {
  const taken = new Map<string, { server: string; tool: string }>();
  const named: NamedTool<T>[] = [];
  const refused: { server: string; message: string }[] = [];
  for (const e of entries) {
    const wire = wireName(e.server, e.tool);
    const other = taken.get(wire);
    if (other) {
      refused.push({
        server: e.server,
        message: `tool "${e.tool}" of server "${e.server}" is not offered: its name ${wire} is already taken by tool "${other.tool}" of server "${other.server}"`,
      });
      continue;
    }
    taken.set(wire, { server: e.server, tool: e.tool });
    named.push({ wire, ...e });
  }
  return { named, refused };
}
