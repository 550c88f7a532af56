// GetErrorStats' windows: per-second counters summed over the last 24 h, 6 h, 1 h, 10 min and 1 min, kept across a
// restart through their file, and forgotten once older than a day.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openErrorCounters } from '../../src/metrics/index.js'

const windows = suite('error windows')

function manualClock(startMs: number) {
  let now = startMs
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

const start = Date.UTC(2025, 4, 1, 12, 0, 0)
let dir: string
windows.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-errors-'))
})
windows.after.each(() => fs.rmSync(dir, { recursive: true, force: true }))

windows('each window counts the calls of its own span, and says where it starts', () => {
  const clock = manualClock(start)
  const counters = openErrorCounters({ file: path.join(dir, 'errors.json'), clock })
  counters.record(false) // 5 h ago, seen below
  clock.advance(4 * 3600_000)
  counters.record(true) // 1 h ago
  counters.record(false)
  clock.advance(3600_000 - 5 * 60_000)
  counters.record(true) // 5 min ago
  clock.advance(5 * 60_000 - 30_000)
  counters.record(true) // 30 s ago
  counters.record(false)
  clock.advance(30_000)
  counters.record(true) // now

  const now = Math.floor(clock.now() / 1000)
  const report = counters.report()
  assert.equal(report.past1m, { from_unix: now - 60, total: 3, errors: 1 })
  assert.equal(report.past10m, { from_unix: now - 600, total: 4, errors: 1 })
  // The calls exactly one hour old fall out of the 1 h window: the window holds its last 3600 seconds.
  assert.equal(report.past1h, { from_unix: now - 3600, total: 4, errors: 1 })
  assert.equal(report.past6h, { from_unix: now - 21_600, total: 7, errors: 3 })
  assert.equal(report.past24h, { from_unix: now - 86_400, total: 7, errors: 3 })
})

windows('several calls in one second add up in that second', () => {
  const clock = manualClock(start)
  const counters = openErrorCounters({ file: path.join(dir, 'errors.json'), clock })
  for (let i = 0; i < 5; i++) counters.record(i % 2 === 0)
  clock.advance(999)
  counters.record(false)
  assert.equal(counters.report().past1m, { from_unix: Math.floor(clock.now() / 1000) - 60, total: 6, errors: 3 })
})

windows('the counters survive a restart through their file', () => {
  const clock = manualClock(start)
  const file = path.join(dir, 'cache', 'errors.json')
  const before = openErrorCounters({ file, clock })
  before.record(true)
  before.record(false)
  before.record(false)
  before.persist()
  clock.advance(10_000)
  const after = openErrorCounters({ file, clock })
  assert.equal(after.report().past1m, { from_unix: Math.floor(clock.now() / 1000) - 60, total: 3, errors: 2 })
  after.record(true)
  assert.is(after.report().past24h.total, 4)
})

windows('calls older than a day are dropped, also from the file', () => {
  const clock = manualClock(start)
  const file = path.join(dir, 'errors.json')
  const counters = openErrorCounters({ file, clock })
  counters.record(false)
  clock.advance(86_400_000)
  counters.record(true)
  assert.equal(counters.report().past24h.errors, 0)
  assert.equal(counters.report().past24h.total, 1)
  counters.persist()
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).length, 1)
})

windows('an unreadable file starts the counters empty instead of stopping the daemon', () => {
  const file = path.join(dir, 'errors.json')
  fs.writeFileSync(file, '{not json')
  const counters = openErrorCounters({ file, clock: manualClock(start) })
  assert.is(counters.report().past24h.total, 0)
  counters.record(false)
  assert.is(counters.report().past24h.errors, 1)
})

windows('reset forgets every call and removes the file', () => {
  const clock = manualClock(start)
  const file = path.join(dir, 'errors.json')
  const counters = openErrorCounters({ file, clock })
  counters.record(false)
  counters.persist()
  counters.reset()
  assert.is(counters.report().past24h.total, 0)
  assert.not.ok(fs.existsSync(file))
})

windows.run()
