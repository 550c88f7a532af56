// Which file serves each operation, for the operations reference: every handler table is an object literal in a
// file under a room's handlers/ folder whose keys are operation names (`Name: async (input, ctx) => …`, or `const Name: Handler<…>` listed in it). Read from
// the compiled tree this module runs from (an installed package has no src/), and named as its source file.
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

/** The source files (`src/…/handlers/x.ts`) that define a handler of each named operation; none found: []. */
export function handlerFiles(names: readonly string[]): Map<string, string[]> {
  const files = filesUnder(srcRoot)
    .filter(file => file.split(path.sep).includes('handlers'))
    .map(file => ({
      name: `src/${path.relative(srcRoot, file).split(path.sep).join('/').replace(/\.js$/, '.ts')}`,
      text: fs.readFileSync(file, 'utf8'),
    }))
  const found = new Map<string, string[]>()
  for (const name of names) {
    // A key of the table (`Name: async (…) =>`, `async Name(…)`), or a function of that name the table lists.
    const key = new RegExp(`(?:^|[\\s{,])(?:async\\s+)?${name}\\s*[:(]|\\b(?:const|function)\\s+${name}\\b`, 'm')
    found.set(name, files.filter(file => key.test(file.text)).map(file => file.name).sort())
  }
  return found
}
