// config.example.toml at the repository root is assembled, not written by hand: the core's sections
// (src/config/config.example.toml), then each extension's own section with its comments
// (src/extensions/<id>/config.example.toml), in the order of the list of descriptors. So an extension documents its
// keys in its own folder, and the core's text names no extension, while an operator still gets one complete file:
// the root file is what `relaypay init` copies, what the package ships and what a reader of the repository opens.
// It is committed, like docs/operations.md, rather than assembled at init, so that nothing at run time reads the
// source tree. `npm run config-example` rewrites it; test/config/config.test.ts fails while it differs from what
// this script would write. The extensions are read from what tsc wrote to build/ through the list of descriptors,
// so this script names none.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const assembledFile = 'config.example.toml'
export const coreFragment = 'src/config/config.example.toml'
/** @param {string} id */
export const extensionFragment = id => `src/extensions/${id}/config.example.toml`

/**
 * The example file as it should be: the core's fragment, then the fragment of each listed extension that has a
 * config section, one blank line between. An extension with a section and no fragment, or a fragment and no
 * section, is a mistake this refuses by name.
 * @param {string} root the repository
 * @param {readonly { id: string, config?: unknown }[]} descriptors the list of extensions, in its order
 */
export function assembleConfigExample(root, descriptors) {
  const read = relative => fs.readFileSync(path.join(root, relative), 'utf8').trimEnd()
  const parts = [read(coreFragment)]
  for (const { id, config } of descriptors) {
    const fragment = extensionFragment(id)
    const exists = fs.existsSync(path.join(root, fragment))
    if (config && !exists) throw new Error(`the extension ${id} has a config section, and no ${fragment} documenting it`)
    if (!config && exists) throw new Error(`${fragment} documents a config section the extension ${id} does not declare`)
    if (exists) parts.push(read(fragment))
  }
  return parts.join('\n\n') + '\n'
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.cwd()
  const { extensionDescriptors } = await import(pathToFileURL(path.join(root, 'build/src/extensions/descriptors.js')).href)
  fs.writeFileSync(path.join(root, assembledFile), assembleConfigExample(root, extensionDescriptors))
}
