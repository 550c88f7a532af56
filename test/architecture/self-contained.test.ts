// A clone stands on its own (issue 21): no source, test, bench, script or docs generator names a path into the
// specification beside our own checkout, and what the tests check against lives in test/fixtures with a line saying
// where it came from. `.ci/run` proves the first by running the suite in a clone with nothing beside it; this test
// catches a reintroduced path at once, on any machine.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from '../support/paths.js'

const test = suite('the repository reads nothing outside itself')

/**
 * A quoted path into the specification or the shared folder beside the checkout, in any of the forms it took before
 * (`../shared`, `${sharedDir}/seeds/…`, `path.resolve(root, '..', 'shared')`), or a seed file's name.
 */
const outside = [
  /['"`][^'"`\n]*(\.\.\/shared\b|\/work\/|\bshared\/(seeds|reference)\b|\/seeds\/|\/reference\/[\w-]+\.md)/,
  /['"`]shared['"`]/,
  /\bsharedDir\b/,
  /\b\d{3}_[0-9a-f]{16}\.txt\b/,
]
const scanned = ['src', 'test', 'bench', 'bin', 'schema', '.ci', 'package.json', 'tsconfig.json']
const textFile = /\.(ts|tsx|js|mjs|cjs|json|sql|toml|sh)$|^run$/

/** Every `file:line` under `root`'s scanned folders whose text names a path outside the repository. */
function outsideReferences(root: string, skip: string[] = []): string[] {
  const found: string[] = []
  const visit = (full: string) => {
    const stat = fs.statSync(full, { throwIfNoEntry: false })
    if (!stat) return
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full)) if (name !== 'node_modules') visit(path.join(full, name))
      return
    }
    const relative = path.relative(root, full)
    // The fixtures cite the files they were taken from; they are data, read by nothing but the tests.
    if (!textFile.test(path.basename(full)) || skip.includes(relative) || relative.startsWith('test/fixtures/')) return
    fs.readFileSync(full, 'utf8').split('\n').forEach((line, i) => {
      if (outside.some(pattern => pattern.test(line))) found.push(`${relative}:${i + 1}`)
    })
  }
  for (const entry of scanned) visit(path.join(root, entry))
  return found
}

test('no file names a path into ../shared, the seeds or the reference', () => {
  assert.equal(outsideReferences(repoRoot, ['test/architecture/self-contained.test.ts']), [])
})

test('the check finds such a path where one is planted (control)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-self-contained-'))
  try {
    fs.mkdirSync(path.join(root, 'test/support'), { recursive: true })
    fs.writeFileSync(path.join(root, 'test/support/paths.ts'), "export const seeds = path.join(root, '../shared/seeds')\n")
    fs.mkdirSync(path.join(root, 'bench'))
    fs.writeFileSync(path.join(root, 'bench/x.ts'), "const ok = 1\nread('/work/shared/reference/pub-messages.md')\n")
    // The forms the catalogue tests used before issue 21.
    fs.mkdirSync(path.join(root, 'test/schema'))
    fs.writeFileSync(
      path.join(root, 'test/schema/x.test.ts'),
      [
        "export const sharedDir = path.resolve(repoRoot, '..', 'shared')",
        'const seedText = readFileSync(`${dir}/seeds/000_c90667e3864e4952.txt`)',
        'const pub = readFileSync(`${dir}/reference/pub-messages.md`)',
        '// reference/pub-protocol.md §3.4 in a comment is a citation, not a read',
      ].join('\n'),
    )
    assert.equal(outsideReferences(root).sort(), ['bench/x.ts:2', 'test/schema/x.test.ts:1', 'test/schema/x.test.ts:2', 'test/schema/x.test.ts:3', 'test/support/paths.ts:1'])
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('every fixture says where it came from', () => {
  const dir = path.join(repoRoot, 'test/fixtures')
  const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter(entry => entry.isFile())
  assert.ok(files.length >= 4, 'the fixtures are there')
  for (const entry of files) {
    const text = fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8')
    const source = entry.name.endsWith('.json') ? JSON.parse(text).source : text.split('\n')[0]!.replace(/^# source: /, '')
    assert.ok(typeof source === 'string' && source.length > 40, `${entry.name} names its source`)
  }
})

test.run()
