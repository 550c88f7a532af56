// Which files the PostgreSQL half of a run repeats (test/store-tests.ts): those whose daemons follow the store
// switch; not those that run the same either way because they set the switch themselves or name their own
// PostgreSQL, which would only double the run's time.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { repoRoot } from '../support/paths.js'
import { storeTests } from '../store-tests.js'

const test = suite('the PostgreSQL half of a run')
const testRoot = path.join(repoRoot, 'build', 'test')

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? testFiles(full) : entry.name.endsWith('.test.js') ? [full] : []
  })
}

test('repeats the files whose daemons follow the switch, not those that fix it', () => {
  const files = testFiles(testRoot)
  const chosen = new Set(storeTests(files, testRoot).map(file => path.relative(testRoot, file)))
  // Daemons through the harness, directly or through a helper (the chaos world).
  for (const file of ['wallet/paying.test.js', 'fuzz/nostr.test.js', 'chaos/sigkill-payments.test.js']) {
    assert.ok(chosen.has(file), `${file} is left out`)
  }
  // The switch set by the file or by a helper it imports, or turned off: the same run in either half.
  for (const file of ['chaos/postgres-faults-sessions.test.js', 'lifecycle/standby.test.js', 'store/store-copy.test.js']) {
    assert.not.ok(chosen.has(file), `${file} runs twice`)
  }
  // No daemon at all.
  assert.not.ok(chosen.has('store/sql-store.test.js'))
  assert.ok(chosen.size > 50 && chosen.size < files.length, `${chosen.size} of ${files.length}`)
})

test.run()
