// Bundles each extension's customer pages (a restaurant's order page, say) into build/console, where the page's
// handler reads its script to inline it (src/inline-page). Which pages there are is each extension's descriptor's
// `pages` (schema/extension.ts), read from what tsc wrote to build/ through the list of descriptors, so the build
// names no extension: `entry` is in the extension's folder (src/extensions/<id>/), `bundle` is the file it becomes.
import { build } from 'esbuild'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const root = process.cwd()
const { extensionDescriptors } = await import(pathToFileURL(path.join(root, 'build/src/extensions/descriptors.js')).href)

for (const { id, pages } of extensionDescriptors) {
  for (const { entry, bundle } of pages) {
    await build({
      entryPoints: [path.join('src/extensions', id, entry)],
      outfile: path.join('build/console', bundle),
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2020',
      logLevel: 'warning',
    })
  }
}
