// Bundles each file of src/vendor with the package it re-exports into one file, over what tsc wrote to
// build/src/vendor. Node 20 loads a package module by module, and CommonJS ones through its lexer: RxJS alone is 223
// files. Every daemon start, every command and every worker thread paid that (about a third of a start's CPU); one
// file each costs a fraction. Only the packages the daemon loads at every start are here (bolt11: every start on the
// embedded node), and the source imports them only through src/vendor, so a process holds one copy of each (a second
// copy would break `instanceof`).
// The packages' own dependencies are bundled with them. What a package loads at run time by path (native addons,
// worker files) must not be bundled: bolt11's secp256k1 does (its native addon, found by its own directory), so it
// is left outside and loads from node_modules; none of the others does so on the daemon's paths.
import { build } from 'esbuild'
import fs from 'node:fs'
import path from 'node:path'

const root = process.cwd()
const entries = fs
  .readdirSync(path.join(root, 'src/vendor'))
  .filter(name => name.endsWith('.ts'))
  .map(name => path.join('src/vendor', name))

await build({
  entryPoints: entries,
  outdir: 'build/src/vendor',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // V8 keeps a module's source text in the heap of every thread that loads it (functions are compiled from it on
  // first call). Unminified, zod's bundle was a 1.5 MB string (its locales' letters made it two bytes a character)
  // and the five bundles 2.3 MB a thread. Whitespace and syntax only: identifiers keep their names for stack traces,
  // and non-ASCII letters are escaped so that every bundle is a one-byte string.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  logLevel: 'warning',
  external: ['secp256k1'],
  // CommonJS code bundled into an ES module still calls require() for Node's own modules (events, fs, …).
  banner: { js: "import { createRequire as __vendorRequire } from 'node:module'; const require = __vendorRequire(import.meta.url);" },
})
