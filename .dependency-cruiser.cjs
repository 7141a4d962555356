// The import rules CI holds (`npm run layers`, issue 25); docs/architecture.md draws the layers.
//
// core/src, bottom to top; an area imports only the areas before it here, and its own files:
//   .                           the files directly in core/src (json, duration, program, decoding, …) and text/ (words and their escaping)
//   provisioner, mesh           seed 000's loop and the provider's fact log; the mesh's records
//   standings, lease            siblings: neither imports the other
//   gate                        the release gate and module health (seed 003)
//   delivery                    push and delivery (seeds 002, 004): a push composes with what the plans hold
//   controller                  joins the areas: replay, render, metrics, sweep, the controller's fact log
//   status                      the one place to look: every area's reads, not the controller
//   library                     the core as a library (issue 29): its entry names decisions of every area
// A core folder the table does not name may import only the root files: a new area is placed here first.

const root = "^core/src/([^/]+[.]ts$|text/)"
const pathOf = (name) => (name === "." ? root : `^core/src/${name}/`)

/** What each core area may import besides its own folder. */
const below = {
  provisioner: ["."],
  mesh: ["."],
  standings: [".", "provisioner", "mesh"],
  lease: [".", "provisioner", "mesh"],
  gate: [".", "provisioner", "mesh", "standings", "lease"],
  delivery: [".", "provisioner", "mesh", "standings", "lease", "gate"],
  controller: [".", "provisioner", "mesh", "standings", "lease", "delivery", "gate"],
  status: [".", "provisioner", "mesh", "standings", "lease", "delivery", "gate"],
  library: [".", "provisioner", "mesh", "standings", "lease", "delivery", "gate", "controller", "status"],
}

const layerRules = Object.entries(below).map(([name, allowed]) => ({
  name: `core-${name}-imports-downward`,
  comment: `core/src/${name}/ imports only ${allowed.join(", ")} and itself`,
  severity: "error",
  from: { path: pathOf(name) },
  to: { path: "^core/src/", pathNot: [...allowed.map(pathOf), pathOf(name)] },
}))

// core/src/gate, its rooms bottom to top, the same way (issue 39): judging (the facts a judging reads,
// the judgings and what a gate says: pure); the plan's life (its records, tiers, history, events, rows
// and how it is shown: pure); the tick, with its catalogue (what carrying a plan on and one judging
// ask); above it the programs that share the tick's questions, each room with its own catalogue: the
// machines' messages, and what a person does (release, the verbs, which carry a plan on as the tick
// does); and on top the files directly in gate/ (world.ts: what a replay infers of every room's questions).
const gateRoot = "^core/src/gate/[^/]+[.]ts$"
const gatePathOf = (name) => (name === "." ? gateRoot : `^core/src/gate/${name}/`)
/** What each room of the gate may import of the gate besides its own folder. */
const gateBelow = {
  judging: [],
  plan: ["judging"],
  tick: ["judging", "plan"],
  messages: ["judging", "plan", "tick"],
  operator: ["judging", "plan", "tick"],
  ".": ["judging", "plan", "tick", "messages", "operator"],
}
const gateRoomRules = Object.entries(gateBelow).map(([name, allowed]) => ({
  name: `gate-${name === "." ? "world" : name}-imports-downward`,
  comment: `core/src/gate/${name === "." ? "" : `${name}/`} imports of the gate only ${allowed.join(", ") || "nothing"} and itself`,
  severity: "error",
  from: { path: gatePathOf(name) },
  to: { path: "^core/src/gate/", pathNot: [...allowed.map(gatePathOf), gatePathOf(name)] },
}))

// shells/src, bottom to top, the same way: the files directly in shells/src (config, journal, retry…);
// the store, the bus and files; the one driver and recorder (program/); the areas' shells; the
// followers' transaction; the gate; the controller that wires them; simulate; the CLI on top.
const shellsRoot = "^shells/src/[^/]+[.](ts|js)$"
const shellsPathOf = (name) => (name === "." ? shellsRoot : `^shells/src/${name}/`)
const infra = [".", "store", "bus", "files"]
/** What each shells area may import besides its own folder. */
const shellsBelow = {
  store: ["."],
  bus: ["."],
  files: ["."],
  program: infra,
  lease: [...infra, "program"],
  standings: [...infra, "program"],
  provisioner: [...infra, "program"],
  metrics: [...infra, "program", "lease"],
  delivery: [...infra, "program", "lease"],
  engine: [...infra, "program", "lease", "delivery"],
  followers: [...infra, "program", "lease", "metrics"],
  gate: [...infra, "program", "lease", "metrics", "standings", "delivery", "followers"],
  controller: [...infra, "program", "lease", "metrics", "standings", "delivery", "followers", "gate"],
  simulate: [...infra, "program"],
}
const shellsLayerRules = Object.entries(shellsBelow).map(([name, allowed]) => ({
  name: `shells-${name}-imports-downward`,
  comment: `shells/src/${name}/ imports only ${allowed.join(", ")} and itself`,
  severity: "error",
  from: { path: shellsPathOf(name) },
  to: { path: "^shells/src/", pathNot: [...allowed.map(shellsPathOf), shellsPathOf(name)] },
}))

// The modules of store/ and bus/ the other shells may import: their services, and the bus's subject
// and header names (no I/O). The rest is theirs alone: migrations, SQL helpers, discovery's raw calls.
const storeServices = "^shells/src/store/(postgres|standings|gate|delivery|probe|role|reach)[.]ts$"
const busServices = "^shells/src/bus/(nats|mesh-bus|subjects|delivery-names|probe|lease-bucket)[.]ts$"

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycle",
      comment: "no import cycle, file by file, type-only imports included (issue 25)",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-root-imports-no-area",
      comment: "the files directly in core/src and its text/ are the bottom layer: they import no area",
      severity: "error",
      from: { path: root },
      to: { path: "^core/src/[^/]+/", pathNot: "^core/src/text/" },
    },
    {
      name: "core-index-is-the-top",
      comment:
        "core/src/library/ is the library's entry for other projects (issue 29): it names decisions of every area, so nothing of this project imports it",
      severity: "error",
      from: { path: "^(core|shells)/src/" },
      to: { path: "^core/src/library/" },
    },
    ...layerRules,
    ...gateRoomRules,
    {
      name: "gate-rooms-are-named",
      comment:
        "a folder of core/src/gate/ the room table does not name imports nothing of the gate: place it in the table",
      severity: "error",
      from: { path: "^core/src/gate/([^/]+)/", pathNot: Object.keys(gateBelow).map(gatePathOf) },
      to: { path: "^core/src/gate/", pathNot: "^core/src/gate/$1/" },
    },
    ...shellsLayerRules,
    {
      name: "shells-root-imports-no-area",
      comment: "the files directly in shells/src are the bottom layer of the shells: they import no area",
      severity: "error",
      from: { path: shellsRoot },
      to: { path: "^shells/src/[^/]+/" },
    },
    {
      name: "core-unknown-area-imports-root-only",
      comment: "a core folder the layer table does not name imports only the root files: place it in the table",
      severity: "error",
      from: { path: "^core/src/([^/]+)/", pathNot: Object.keys(below).map(pathOf) },
      to: { path: "^core/src/", pathNot: [root, "^core/src/$1/"] },
    },
    {
      name: "core-is-pure",
      comment: "core/ imports nothing from shells/, no node built-in, no store or bus client, no Effect platform",
      severity: "error",
      from: { path: "^core/" },
      to: {
        path: ["^shells/", "node_modules/(postgres|@nats-io/[^/]+|@effect/platform[^/]*)/"],
      },
    },
    {
      name: "core-no-node-builtins",
      comment: "core/ imports no node built-in (node:fs, node:crypto, …)",
      severity: "error",
      from: { path: "^core/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "nothing-imports-the-cli",
      comment: "shells/src/cli/ is the top: no other module imports it",
      severity: "error",
      from: { path: "^(core|shells)/src/", pathNot: "^shells/src/cli/" },
      to: { path: "^shells/src/cli/" },
    },
    {
      name: "only-the-store-imports-postgres",
      comment:
        "the PostgreSQL client is the store's: everyone else asks the store's services; the provider's " +
        "adapter is the other user, as the PostgreSQL it provisions is not the store (issue 14)",
      severity: "error",
      from: {
        path: "^(core|shells)/src/",
        pathNot: ["^shells/src/store/", "^shells/src/provisioner/postgres-adapter[.]ts$"],
      },
      to: { path: "node_modules/postgres/" },
    },
    {
      name: "only-the-bus-imports-nats",
      comment: "the NATS clients are the bus's: everyone else asks the bus's services",
      severity: "error",
      from: { path: "^(core|shells)/src/", pathNot: "^shells/src/bus/" },
      to: { path: "node_modules/@nats-io/" },
    },
    {
      name: "areas-reach-the-store-through-its-services",
      comment: `a shell outside store/ imports only the store's service modules (${storeServices})`,
      severity: "error",
      from: { path: "^shells/src/", pathNot: "^shells/src/store/" },
      to: { path: "^shells/src/store/", pathNot: storeServices },
    },
    {
      name: "areas-reach-the-bus-through-its-services",
      comment: `a shell outside bus/ imports only the bus's service modules (${busServices})`,
      severity: "error",
      from: { path: "^shells/src/", pathNot: "^shells/src/bus/" },
      to: { path: "^shells/src/bus/", pathNot: busServices },
    },
  ],
  options: {
    // TypeScript 7.0 has no compiler API for dependency-cruiser to parse with; swc parses the sources
    // as they are, and reports type-only imports as such, so a type reaching across a layer counts.
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "[.]cache/" },
    moduleSystems: ["es6"],
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "node", "default", "types"],
      extensions: [".ts", ".js"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
}
