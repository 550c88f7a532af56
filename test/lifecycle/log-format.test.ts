// How the log reads, as an operator sees it from `relaypay start`: JSON lines when stdout is a pipe (a service
// manager, a collector), one readable line each in a terminal (under a real pseudo-terminal, by util-linux's
// `script`), and readable on request (`[log] format = "pretty"`, here RELAYPAY_LOG_FORMAT) whatever stdout is. The
// embedded relay's thread writes in the same format as the daemon.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { cliPath, relaypayArgs, tempDataDir } from '../support/daemon.js'
import { spawnCollecting, type Spawned } from '../support/spawned.js'
import { until } from '../support/until.js'

const test = suite('log format')

const env = (more: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const inherited: NodeJS.ProcessEnv = { ...process.env }
  delete inherited.RELAYPAY_LOG_FORMAT
  delete inherited.NO_COLOR
  return { ...inherited, RELAYPAY_NODE_MOCK: 'true', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0', ...more }
}
const startArgs = (dataDir: string) => relaypayArgs(cliPath, ['start', '--data-dir', dataDir, '--http-port', '0'])
/** A readable line: `[06:41:07.312] INFO: http listening {"url":…}` (colours stripped). */
const readable = /^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR|DEBUG): /
// eslint-disable-next-line no-control-regex
const withoutColours = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '')

/** Runs until the daemon says it listens (in either format) and its daemon.json is written; stops it; its output. */
async function logOfStart(child: Spawned, dataDir: string): Promise<string> {
  try {
    await until(() => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${child.output()}`)
      return /http listening/.test(child.output()) && fs.existsSync(path.join(dataDir, 'daemon.json'))
    }, 'the daemon to listen', 60_000)
  } finally {
    // Under `script` the daemon is its grandchild: it is stopped by its pid, and `script` ends with it (a SIGTERM
    // to `script` itself would add its own words to the output).
    const info = path.join(dataDir, 'daemon.json')
    if (fs.existsSync(info)) {
      process.kill((JSON.parse(fs.readFileSync(info, 'utf8')) as { pid: number }).pid, 'SIGTERM')
      await until(() => !child.running, 'the daemon to stop', 30_000).finally(() => child.stop())
    } else {
      await child.stop()
    }
  }
  return child.output()
}

const lines = (output: string) => withoutColours(output).split(/\r?\n/).filter(line => line.trim() !== '')

test('to a pipe, by default: one JSON object a line, the relay thread too', async () => {
  const dataDir = path.join(tempDataDir(), 'data')
  const output = await logOfStart(spawnCollecting(process.execPath, startArgs(dataDir), { env: env() }), dataDir)
  const parsed = lines(output).map(line => JSON.parse(line) as { msg: string; room?: string })
  assert.ok(parsed.some(line => line.msg === 'http listening'))
  assert.ok(parsed.some(line => line.room === 'relay' && line.msg === 'relay listening'), 'the relay thread logged')
})

test('[log] format = "pretty": readable lines to a pipe, without colours; the relay thread too', async () => {
  const dataDir = path.join(tempDataDir(), 'data')
  const output = await logOfStart(spawnCollecting(process.execPath, startArgs(dataDir), { env: env({ RELAYPAY_LOG_FORMAT: 'pretty' }) }), dataDir)
  assert.not.match(output, /\x1b\[/, 'no colour codes when stdout is not a terminal')
  for (const line of lines(output)) assert.match(line, readable, JSON.stringify(line))
  assert.ok(lines(output).some(line => /INFO: http listening \{.*"url":"http:\/\/127\.0\.0\.1:\d+"/.test(line)), output)
  assert.ok(lines(output).some(line => /INFO: relay listening \{"room":"relay"/.test(line)), output)
})

test('in a terminal, by default: readable, coloured lines', async () => {
  const dataDir = path.join(tempDataDir(), 'data')
  const command = [process.execPath, ...startArgs(dataDir)].map(word => `'${word}'`).join(' ')
  // `script` gives the daemon a pseudo-terminal as stdout and copies what it shows to ours.
  const output = await logOfStart(spawnCollecting('script', ['-qec', command, '/dev/null'], { env: env() }), dataDir)
  assert.match(output, /\x1b\[3\dm(INFO|WARN)/, 'levels are coloured')
  const shown = lines(output).filter(line => !/^Script (started|done)/.test(line))
  for (const line of shown) assert.match(line, readable, JSON.stringify(line))
  assert.ok(shown.some(line => /INFO: http listening/.test(line)), output)
})

test.run()
