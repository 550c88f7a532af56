// docs/operations.md is generated from the catalogue; this fails when someone changes the catalogue and forgets
// `npm run docs`.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { operationsReference } from '../../src/cli/docs.js'
import { catalogue } from '../../schema/catalogue.js'
import { repoRoot } from '../support/paths.js'

const docs = suite('operations reference')

docs('docs/operations.md matches the catalogue (run `npm run docs` after changing it)', () => {
  const committed = fs.readFileSync(path.join(repoRoot, 'docs/operations.md'), 'utf8')
  assert.ok(committed === operationsReference(), 'docs/operations.md is stale: run `npm run docs`')
})

docs('every operation has a section with its summary', () => {
  const text = operationsReference()
  for (const entry of catalogue) {
    assert.ok(text.includes(`### ${entry.name}\n\n${entry.summary}\n`), entry.name)
    assert.ok(entry.summary.length > 10, `${entry.name} needs a real summary`)
  }
})

docs.run()
