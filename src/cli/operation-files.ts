// Which files declare and serve each operation, for the operations reference: every catalogue entry is written in
// its room's contract/operations.ts (`name: 'Name'`), and every handler table is an object literal in a file under a
// room's handlers/ folder whose keys are operation names (`Name: async (input, ctx) => …`, or `const Name:
// Handler<…>` listed in it). Read from the compiled tree this module runs from (an installed package has no src/),
// and named as their source files.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** build/src (or src when run from the sources). */
const srcRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)))

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(file)
    return /\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : []
  })
}

/** The compiled files of src/ whose path (split into its folders and name) passes `keep`, named as their sources. */
function sources(keep: (parts: string[]) => boolean): { name: string; text: string }[] {
  return filesUnder(srcRoot)
    .filter(file => keep(path.relative(srcRoot, file).split(path.sep)))
    .map(file => ({
      name: `src/${path.relative(srcRoot, file).split(path.sep).join('/').replace(/\.js$/, '.ts')}`,
      text: fs.readFileSync(file, 'utf8'),
    }))
}

/** For each name, the files whose text `pattern(name)` matches, sorted; none: []. */
function filesNaming(files: { name: string; text: string }[], names: readonly string[], pattern: (name: string) => RegExp) {
  return new Map(
    names.map(name => {
      const named = pattern(name)
      return [name, files.filter(file => named.test(file.text)).map(file => file.name).sort()]
    }),
  )
}

/** The source files (`src/…/handlers/x.ts`) that define a handler of each named operation; none found: []. */
export function handlerFiles(names: readonly string[]): Map<string, string[]> {
  // A key of the table (`Name: async (…) =>`, `async Name(…)`), or a function of that name the table lists.
  return filesNaming(sources(parts => parts.includes('handlers')), names, name =>
    new RegExp(`(?:^|[\\s{,])(?:async\\s+)?${name}\\s*[:(]|\\b(?:const|function)\\s+${name}\\b`, 'm'))
}

/** The contract files (`src/…/contract/operations.ts`) that declare each named operation's entry; none found: []. */
export function contractFiles(names: readonly string[]): Map<string, string[]> {
  const contracts = sources(parts => parts.at(-2) === 'contract' && /^operations\.(js|ts)$/.test(parts.at(-1)!))
  return filesNaming(contracts, names, name => new RegExp(`\\bname:\\s*['"]${name}['"]`))
}
