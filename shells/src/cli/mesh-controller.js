#!/usr/bin/env node
// mesh-controller's entry: Node's compile cache first, then the CLI (main.ts). A TypeScript entry
// loads Node's type stripper (~18 MiB resident) and strips ~300 files on every start (a third of a
// second of CPU); with the cache on, a start after the first reads them stripped and compiled, and
// the stripper is never loaded (issue 11). Plain JavaScript, as the cache must be on before the
// first TypeScript file is loaded. The cache is Node's own, keyed by each file's content.
import { enableCompileCache } from "node:module"

enableCompileCache()
await import("./main.ts")
