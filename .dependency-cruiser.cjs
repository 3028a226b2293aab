// What may import what (docs/architecture.md, "Layers"). Each folder of src/ is a layer; a
// module may import its own layer and the layers below it, never one above. `npm test` runs
// this check, so an upward import fails the suite.
const LAYERS = [
  ["record"],
  ["provider", "tokens"],
  ["tools", "replay"],
  ["compaction"],
  ["inspector"],
  ["config"],
  // MCP servers: I/O like tools/, and they read the config; the controller wires them
  ["store", "extensions"],
  ["turn"],
  ["controller", "api"],
  ["ui"],
  ["cli"],
  // the bin: runs the bundled CLI, imports only paths from config/
  ["launch"],
];

const folder = (name) => (name === "cli" ? "^src/cli\\.ts$" : `^src/${name}/`);
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
    { name: "no-store-extensions", severity: "error", from: { path: "^src/(store|extensions)/" }, to: { path: "^src/(store|extensions)/", pathNot: "$1" } },
    { name: "no-controller-api", severity: "error", from: { path: "^src/controller/" }, to: { path: "^src/api/" } },
    { name: "no-api-controller", severity: "error", from: { path: "^src/api/" }, to: { path: "^src/controller/" } },
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
      from: { path: "^src/", pathNot: "^src/store/" },
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
