// CHANGELOG.md keeps a section for the package's version (or Unreleased work above it), and every version section
// opens with what to do before upgrading, so an operator finds the upgrade steps in one place.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../support/paths.js'

const text = fs.readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8')
const sections = text.split(/^## /m).slice(1).map(section => ({ title: section.split('\n', 1)[0]!.trim(), body: section }))

test("the package's version has a section, newest first", () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
  const titles = sections.map(s => s.title)
  assert.ok(titles.includes(version), `no "## ${version}" in CHANGELOG.md: ${titles.join(', ')}`)
  const versions = titles.filter(t => t !== 'Unreleased')
  const newerFirst = [...versions].sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
  assert.equal(versions, newerFirst)
  if (titles.includes('Unreleased')) assert.is(titles[0], 'Unreleased', 'Unreleased comes first')
})

test('every section opens with its upgrade steps', () => {
  for (const { title, body } of sections) {
    const headings = [...body.matchAll(/^### (.+)$/gm)].map(m => m[1])
    assert.is(headings[0], 'Upgrading', `## ${title}`)
    assert.match(body.split('### Upgrading')[1] ?? '', /^\s*\n- /, `## ${title}: the steps are a list`)
  }
})

test.run()
