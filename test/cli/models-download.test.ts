// `relaypay models download` on a daemon without the local engine: one line saying how to install it, exit 1, no
// progress bar and no JSON.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { cliPath, startDaemon, type TestDaemon } from '../support/daemon.js'

async function download(d: TestDaemon): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, 'models', 'download', 'base.en', '--data-dir', d.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', c => (stdout += c))
  child.stderr.on('data', c => (stderr += c))
  const code = await new Promise<number | null>(resolve => child.on('exit', resolve))
  return { code, stdout, stderr }
}

const installHint =
  'relaypay: the local transcription engine is not installed on the daemon: run `npm install --no-save @fugood/whisper.node` ' +
  'in the folder relaypay runs from, restart the daemon, then download again\n'

test('without the engine: how to install it, exit 1, no bar, nothing on stdout', async () => {
  // `missing` makes the daemon answer as a machine without the engine, whether or not this one has it.
  const d = await startDaemon({ config: '[models]\nengine = "missing"\n' })
  try {
    const run = await download(d)
    assert.is(run.code, 1)
    assert.is(run.stderr, installHint)
    assert.is(run.stdout, '')
  } finally {
    await d.stop()
  }
})

test('the engine detected at start (auto): the same answer on a machine that lacks it', async () => {
  const d = await startDaemon()
  try {
    const list = await d.request('GET', '/transcription/api/v1/models', { headers: { authorization: `Bearer ${d.adminToken}` } })
    if (list.json.local_engine_installed) return // this machine has the engine: nothing to check here
    const run = await download(d)
    assert.is(run.code, 1)
    assert.is(run.stderr, installHint)
    assert.not.match(run.stderr, /%/)
  } finally {
    await d.stop()
  }
})

test.run()
