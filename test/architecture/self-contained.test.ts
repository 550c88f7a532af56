// A clone stands on its own: no source, test, bench, script or docs generator names a path into the
// specification beside our own checkout, and what the tests check against lives in test/fixtures with a line saying
// where it came from. `.ci/run` proves the first by running the suite in a clone with nothing beside it; this test
// catches a reintroduced path at once, on any machine. Nor may a comment or doc send a newcomer to what a clone does
// not hold: a file of the specification, the design notes, an issue number, a doc of ours that does not exist.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
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

/**
 * Each line of every file under `root`'s `entries` (node_modules and test/fixtures aside — the fixtures cite the
 * files they were taken from; they are data, read by nothing but the tests) that `wanted` keeps.
 */
function eachLine(root: string, entries: string[], wanted: (relative: string) => boolean, onLine: (relative: string, line: string, i: number) => void): void {
  const visit = (full: string) => {
    const stat = fs.statSync(full, { throwIfNoEntry: false })
    if (!stat) return
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full)) if (name !== 'node_modules') visit(path.join(full, name))
      return
    }
    const relative = path.relative(root, full)
    if (relative.startsWith('test/fixtures/') || !wanted(relative)) return
    fs.readFileSync(full, 'utf8').split('\n').forEach((line, i) => onLine(relative, line, i))
  }
  for (const entry of entries) visit(path.join(root, entry))
}

/** Every `file:line` under `root`'s scanned folders whose text names a path outside the repository. */
function outsideReferences(root: string, skip: string[] = []): string[] {
  const found: string[] = []
  eachLine(root, scanned, relative => textFile.test(path.basename(relative)) && !skip.includes(relative), (relative, line, i) => {
    if (outside.some(pattern => pattern.test(line))) found.push(`${relative}:${i + 1}`)
  })
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
    // The forms the catalogue tests used when they still read the specification beside the checkout.
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

/**
 * The forms a citation of something a clone lacks took: a specification or reference file, the design notes, the
 * shared folder, a seed (by path or by number), an issue number. Case does not matter.
 */
const citations = [
  /\breference\/[\w-]+\.md\b/i,
  /\bDESIGN\.md\b/i,
  /\.\.\/shared\b/i,
  /\bseeds\//i,
  /\bseeds?\s+\d{3}\b/i,
  /\bissues?\s+#?\d+/i,
]
const citingRoots = ['src', 'schema', 'bench', 'test', 'docs', 'README.md', '.ci/run']
const citingFile = /\.(ts|tsx|js|mjs|cjs|json|sql|toml|sh|md|css|html|ya?ml)$|^run$/
/** A doc named by path (`docs/x.md`) or bare (`x.md` inside no other path: an upstream's `doc/x.md` is its own). */
const docPath = /\bdocs\/([\w./-]+?\.md)\b/g
const bareMarkdown = /(?<![\w./-])([\w-]+\.md)\b/g

/**
 * The labels a fixture's records carry to say which part of the specification each came from ("seed 001 A.
 * Restaurant"). A test quoting one is reading the fixture, not citing the file: such a quoted string is left out.
 */
function fixtureLabels(root: string): string[] {
  const labels = new Set<string>()
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect)
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        // A file's own source line is longer (the test above asks for more than 40 characters).
        if (key === 'source' && typeof inner === 'string' && inner.length < 40) labels.add(inner)
        else collect(inner)
      }
    }
  }
  const dir = path.join(root, 'test/fixtures')
  if (!fs.existsSync(dir)) return []
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.json')) collect(JSON.parse(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8')))
  }
  return [...labels]
}

/** Every `file:line` under `root` (test/fixtures aside) whose text cites a file outside the repository or an issue. */
function outsideCitations(root: string, skip: string[] = []): string[] {
  const labels = fixtureLabels(root)
  const isLabel = (text: string) => labels.some(label => text.startsWith(label) || (text.length >= 4 && label.startsWith(text)))
  const docs = new Set(fs.existsSync(path.join(root, 'docs')) ? fs.readdirSync(path.join(root, 'docs')) : [])
  const topLevel = new Set(fs.readdirSync(root))
  const found: string[] = []
  // docs/*.md only: the folder's other files (a Dockerfile, a unit file) are not docs.
  const wanted = (relative: string) =>
    citingFile.test(path.basename(relative)) && !skip.includes(relative) &&
    !(relative.startsWith('docs/') && (relative.split('/').length > 2 || !relative.endsWith('.md')))
  eachLine(root, citingRoots, wanted, (relative, raw, i) => {
    const line = raw.replace(/(['"`])((?:(?!\1).)*)\1/g, (quoted, _quote, text: string) => (isLabel(text) ? '""' : quoted))
    const missingDoc = [...line.matchAll(docPath)].some(match => !fs.existsSync(path.join(root, 'docs', match[1]!)))
    const strayMarkdown = [...line.matchAll(bareMarkdown)].some(match => !docs.has(match[1]!) && !topLevel.has(match[1]!))
    if (missingDoc || strayMarkdown || citations.some(pattern => pattern.test(line))) found.push(`${relative}:${i + 1}`)
  })
  return found
}

test('no comment or doc cites a file outside the repository or an issue number', () => {
  assert.equal(outsideCitations(repoRoot, ['test/architecture/self-contained.test.ts']), [])
})

test('the citation check finds each form where one is planted (control)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-citations-'))
  const plant = (relative: string, lines: string[]) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true })
    fs.writeFileSync(path.join(root, relative), lines.join('\n'))
  }
  try {
    plant('README.md', ['# x', 'See docs/missing.md, "Start".', 'The messages are in pub-messages.md.'])
    plant('docs/guide.md', ['# Guide', 'As [the other guide](other.md) says.', 'Operators read docs/guide.md and README.md.'])
    plant('src/a.ts', [
      '// reference/pub-protocol.md §3.4: the envelope',
      '// the upstream issue is lnbits/tpos#52; a key from whisper.cpp models/README.md',
      '// Logs hold no secret (DESIGN.md, "Never log secrets").',
      'const seed = seededRandom(seed) // the seed is printed',
    ])
    plant('schema/sql/001_x.sql', ['-- As before ISSUE 21.', 'CREATE TABLE x (id INTEGER);'])
    plant('bench/x.ts', ['// the tables of seeds/001_a77e3cbc13ee2019.txt', '// (issues 6 and 7)'])
    plant('test/x.test.ts', [
      '// The registry as seed 002 describes it.',
      "const fromPartA = routes.filter(r => r.source.startsWith('seed 001 '))",
      "assert.is(routes.filter(r => r.source === 'seed 001 A. Restaurant').length, 3) // seed 001 in a comment is not",
    ])
    plant('test/fixtures/spec/routes.json', ['{"source": "Extracted from seeds/001_x.txt and reference/payroll.md",', '"routes": [{"source": "seed 001 A. Restaurant"}]}'])
    plant('.ci/run', ['#!/bin/sh', '# nothing beside the clone, no ../shared'])
    plant('docs/Dockerfile', ['# see issue 3'])
    assert.equal(outsideCitations(root).sort(), [
      '.ci/run:2',
      'README.md:2',
      'README.md:3',
      'bench/x.ts:1',
      'bench/x.ts:2',
      'docs/guide.md:2',
      'schema/sql/001_x.sql:1',
      'src/a.ts:1',
      'src/a.ts:3',
      'test/x.test.ts:1',
      'test/x.test.ts:3',
    ])
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test.run()
