// Every package package.json installs is used (a dependency nothing imports still costs each install its
// download, its build and its audit). A runtime dependency is imported by src/ or bin/ at run time (a
// type-only import is erased by tsc, so it belongs in devDependencies); a dev dependency is named by the source,
// the tests, the benches or a script, and an @types package types one of the packages installed (or Node).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../support/paths.js'

const test = suite('architecture: dependencies')

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  optionalDependencies?: Record<string, string>
  devDependencies: Record<string, string>
  scripts: Record<string, string>
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(item => {
    const full = path.join(dir, item.name)
    if (item.isDirectory()) return item.name === 'node_modules' ? [] : sourceFiles(full)
    return /\.(ts|tsx|mjs|js)$/.test(item.name) && !item.name.endsWith('.d.ts') ? [full] : []
  })
}

/** Every quoted package specifier in `folders`, split into those used at run time and those only in type imports. */
function specifiers(folders: string[]): { runtime: Set<string>; typeOnly: Set<string> } {
  const runtime = new Set<string>()
  const typeOnly = new Set<string>()
  for (const file of folders.flatMap(folder => sourceFiles(path.join(repoRoot, folder)))) {
    let text = fs.readFileSync(file, 'utf8')
    // `import type … from 'x'` and `export type … from 'x'` leave nothing behind in the compiled file.
    text = text.replace(/\b(?:import|export)\s+type\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/g, (_all, name: string) => {
      typeOnly.add(name)
      return ''
    })
    // What remains: import/export … from, import(), createRequire(…)('x'), and a module name held in a constant.
    for (const m of text.matchAll(/['"]((?:@[\w.-]+\/)?[\w.-]+(?:\/[\w./-]*)?)['"]/g)) runtime.add(m[1]!)
  }
  return { runtime, typeOnly }
}

const names = (set: Set<string>, pkg: string) => [...set].some(s => s === pkg || s.startsWith(`${pkg}/`))

test('every runtime dependency is imported at run time by src/ or bin/, and none is a types package', () => {
  const { runtime } = specifiers(['src', 'bin', 'schema'])
  const installed = { ...manifest.dependencies, ...manifest.optionalDependencies }
  const unused = Object.keys(installed).filter(pkg => !names(runtime, pkg))
  assert.equal(unused, [], `dependencies nothing imports at run time (remove them, or move type-only ones to devDependencies): ${unused.join(', ')}`)
  const types = Object.keys(installed).filter(pkg => pkg.startsWith('@types/'))
  assert.equal(types, [], 'types packages belong in devDependencies')
})

test('every dev dependency is named by the source, tests, benches or scripts; each @types package types an installed one', () => {
  const { runtime, typeOnly } = specifiers(['src', 'bin', 'schema', 'test', 'bench'])
  const scripts = Object.values(manifest.scripts).join('\n')
  const all = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.devDependencies }
  const unused = Object.keys(manifest.devDependencies).filter(pkg => {
    const typed = /^@types\/(.+)$/.exec(pkg)?.[1]
    if (typed) return !(typed === 'node' || typed.replace(/^(.+)__(.+)$/, '@$1/$2') in all)
    return !names(runtime, pkg) && !names(typeOnly, pkg) && !new RegExp(`(^|[\\s/])${pkg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(\\s|$)`, 'm').test(scripts)
  })
  assert.equal(unused, [], `dev dependencies nothing names: ${unused.join(', ')}`)
})

test('the check sees a type-only import as no run-time use', () => {
  // pg is imported for its types in three files and loaded through createRequire in one: a run-time use.
  const { runtime, typeOnly } = specifiers(['src'])
  assert.ok(typeOnly.has('pg'))
  assert.ok(names(runtime, 'pg'))
  // @types/pg is named by no file at run time.
  assert.not.ok(names(runtime, '@types/pg'))
})

test.run()
