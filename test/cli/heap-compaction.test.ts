// The once-a-minute compacting collection (src/cli/heap-compaction.ts), in a process of its own started with
// --expose-gc so that it can collect when it likes: a heap whose pages are half garbage keeps them committed after
// a plain full collection; once the schedule is armed, the next full collection gives the emptied pages back; the
// one after it, in the same interval, is plain again.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { repoRoot } from '../support/paths.js'

const moduleUrl = pathToFileURL(path.join(repoRoot, 'build/src/cli/heap-compaction.js')).href

// Committed old generation in KB, after filling it with small objects and dropping every other one.
const child = `
import v8 from 'node:v8'
import { compactOncePerInterval } from ${JSON.stringify(moduleUrl)}
const committedKb = () => Math.round(v8.getHeapSpaceStatistics().find(s => s.space_name === 'old_space').space_size / 1024)
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const keep = []
for (let i = 0; i < 600000; i++) keep.push({ a: i, b: i + 1, c: null })
gc(); gc()
const dropEveryOther = () => { let live = 0; for (let i = 0; i < keep.length; i++) if (keep[i]) { if (live++ % 2 === 0) keep[i] = null } }
dropEveryOther()
gc(); gc()
const plain = committedKb()
compactOncePerInterval(5000)
let compacted = plain
for (let tries = 0; tries < 300 && compacted > plain * 0.7; tries++) { await sleep(100); gc(); compacted = committedKb() }
// The schedule hears of the collection from a performance observer, a moment later.
await sleep(200)
dropEveryOther()
gc(); gc()
process.stdout.write(JSON.stringify({ plain, compacted, after: committedKb() }))
`

test('a half-empty old generation keeps its pages after a plain collection and gives them back after an armed one, once', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', child], { timeout: 60_000 })
  const { plain, compacted, after } = JSON.parse(stdout) as { plain: number; compacted: number; after: number }
  assert.ok(plain > 20_000, `the filled heap: ${plain} KB committed`)
  assert.ok(compacted < plain * 0.7, `armed: ${plain} KB committed before, ${compacted} KB after`)
  assert.ok(after > compacted * 0.9, `disarmed after one collection: ${compacted} KB before, ${after} KB after half of it was dropped`)
})

test.run()
