// What may import what (docs/architecture.md, "Layers"). Each folder of src/ (or sub-room,
// as session/store) is a layer; a module may import its own layer and the layers below it,
// never one above. `npm test` runs this check, so an upward import fails the suite.
const LAYERS = [
  // text that leaves for a terminal: a leaf that imports nothing
  ["text"],
  ["record"],
  ["provider", "tokens"],
  ["tools", "replay"],
  ["compaction"],
  // the context inspector, pure: capture, change, format (not its API, context/api)
  ["context"],
  ["config"],
  // MCP servers: I/O like tools/, and they read the config; the controller wires them.
  // session/checkpoints: the workspace's file checkpoints and rewind, which the turn uses
  ["session/store", "extensions", "session/checkpoints"],
  ["session/turn"],
  // the front ends' door to a session, and the inspector's local API beside it
  ["session/controller", "context/api"],
  ["ui"],
  ["cli"],
  // the bin: runs the bundled CLI, imports only paths from config/
  ["launch"],
];

// A layer is a folder of src/ or a sub-room of one (session/store). "context" is only the
// files directly in src/context/: its sub-room context/api is a layer of its own, above it.
const folder = (name) => {
  if (name === "cli") return "^src/cli\\.ts$";
  if (name === "context") return "^src/context/[^/]+$";
  return `^src/${name}/`;
};
const above = (i) => LAYERS.slice(i + 1).flat();

module.exports = {
  forbidden: [
    ...LAYERS.flatMap((names, i) =>
      names.map((name) => ({
        name: `no-upward-from-${name}`,
        comment: `${name} may import only its own layer and those below it (${LAYERS.slice(0, i).flat().join(", ") || "nothing"})`,
        severity: "error",
        from: { path: folder(name) },
        to: { path: above(i).length ? `(${above(i).map(folder).join("|")})` : "^$" },
      })),
    ),
    // layers that share a level still must not lean on each other
    { name: "no-tools-replay", severity: "error", from: { path: "^src/(tools|replay)/" }, to: { path: "^src/(tools|replay)/", pathNot: "$1" } },
    { name: "no-store-extensions", severity: "error", from: { path: "^src/(session/store|extensions|session/checkpoints)/" }, to: { path: "^src/(session/store|extensions|session/checkpoints)/", pathNot: "^src/$1/" } },
    { name: "no-controller-api", severity: "error", from: { path: "^src/session/controller/" }, to: { path: "^src/context/api/" } },
    { name: "no-api-controller", severity: "error", from: { path: "^src/context/api/" }, to: { path: "^src/session/controller/" } },
    {
      name: "blessed-only-in-ui",
      comment: "nothing below the screen draws on the terminal",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/ui/" },
      to: { path: "node_modules/blessed/" },
    },
    {
      name: "sqlite-only-in-store",
      comment: "only the store touches SQLite",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/session/store/" },
      to: { path: "node_modules/sqlite3/" },
    },
    {
      name: "network-only-in-provider",
      comment: "only the provider adapters reach the network (the API only listens on loopback)",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/provider/" },
      to: { path: "node_modules/undici/" },
    },
    { name: "no-circular", severity: "error", from: { path: "^src/" }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(dist|test|bench|scripts)/" },
  },
};
