#!/usr/bin/env node
// mesh-controller's entry: Node's compile cache first, then the CLI (main.ts). A TypeScript entry
// loads Node's type stripper (~18 MiB resident) and strips ~300 files on every start (a third of a
// second of CPU); with the cache on, a start after the first reads them stripped and compiled, and
// the stripper is never loaded (issue 11). Plain JavaScript, as the cache must be on before the
// first TypeScript file is loaded. The cache is Node's own, keyed by each file's content.
//
// Every command runs from a bundle of the same sources (bundle.js), built at its first start: a
// replay is one short process whose start was a sixth of a day's replay, and a `status` spent two
// thirds of its CPU loading modules. MESH_BUNDLE=off runs the sources (a profile then names their
// files).
import { enableCompileCache } from "node:module"

enableCompileCache()
const bundled = process.env["MESH_BUNDLE"] !== "off" ? await (await import("./bundle.js")).cliBundle() : undefined
await import(bundled ?? "./main.ts")
