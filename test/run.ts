// Runs every compiled test file in its own process (two at a time on CI's two cores), because integration tests
// start daemons and relays. Prints uvu's per-file summary and ends with the line CI reads: "N passed, N failed".
// Usage: node build/test/run.js [--store] [path-substring …]
// --store: only the files the store switch changes (test/store-tests.ts), for the PostgreSQL half of a run
// (RELAYPAY_TEST_STORE=postgres); the others behave the same on either setting.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { storeTests } from './store-tests.js'

const testRoot = path.dirname(fileURLToPath(import.meta.url))
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 2))
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 5 * 60_000)
const onlyStore = process.argv.includes('--store')
const filters = process.argv.slice(2).filter(arg => arg !== '--store')

function findTests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(item => {
    const full = path.join(dir, item.name)
    if (item.isDirectory()) return item.name === 'support' ? [] : findTests(full)
    return item.name.endsWith('.test.js') ? [full] : []
  })
}

interface FileResult {
  file: string
  passed: number
  failed: number
  skipped: number
  output: string
  ms: number
}

function runFile(file: string): Promise<FileResult> {
  const started = Date.now()
  return new Promise(resolve => {
    const child = spawn(process.execPath, [file], { env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', chunk => (output += chunk))
    child.stderr.on('data', chunk => (output += chunk))
    const timer = setTimeout(() => {
      output += `\n[runner] killed after ${fileTimeoutMs} ms\n`
      child.kill('SIGKILL')
    }, fileTimeoutMs)
    child.on('close', code => {
      clearTimeout(timer)
      const clean = output.replace(/\x1b\[[0-9;]*m/g, '')
      const count = (label: string) =>
        [...clean.matchAll(new RegExp(`${label}:\\s+(\\d+)`, 'g'))].reduce((sum, m) => sum + Number(m[1]), 0)
      let passed = count('Passed')
      let failed = count('Total') - passed - count('Skipped')
      // A crash, a hang or a failure outside any test still fails the file.
      if (code !== 0 && failed === 0) failed = 1
      if (code === 0 && count('Total') === 0) failed = 1
      resolve({ file, passed, failed, skipped: count('Skipped'), output: clean, ms: Date.now() - started })
    })
  })
}

const matching = findTests(testRoot)
  .filter(file => filters.length === 0 || filters.some(f => file.includes(f)))
  .sort()
const files = onlyStore ? storeTests(matching, testRoot) : matching
if (onlyStore) process.stdout.write(`${files.length} of ${matching.length} test files start daemons that follow RELAYPAY_TEST_STORE\n`)
const queue = [...files]
const results: FileResult[] = []
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const result = await runFile(file)
      results.push(result)
      const name = path.relative(testRoot, file)
      const mark = result.failed > 0 ? 'FAIL' : 'ok  '
      process.stdout.write(`${mark} ${name}: ${result.passed} passed, ${result.failed} failed (${result.ms} ms)\n`)
      if (result.failed > 0) process.stdout.write(result.output.replace(/^/gm, '    | ') + '\n')
    }
  }),
)
const passed = results.reduce((sum, r) => sum + r.passed, 0)
const failed = results.reduce((sum, r) => sum + r.failed, 0)
const skipped = results.reduce((sum, r) => sum + r.skipped, 0)
// Where the run's time goes: the slowest files, one line.
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 15)
process.stdout.write(`\nslowest: ${slowest.map(r => `${path.relative(testRoot, r.file)} ${(r.ms / 1000).toFixed(1)} s`).join(', ')}\n`)
process.stdout.write(`${files.length} test files\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
process.exit(failed > 0 || files.length === 0 ? 1 : 0)
