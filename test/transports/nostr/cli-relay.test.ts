// `relaypay call --relay`: the operator's client over the relay, enrolling its own key the first time.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { cliPath, startDaemon, type TestDaemon } from '../../support/daemon.js'

const cli = suite('relaypay call --relay')
let daemon: TestDaemon

function relaypay(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => (stdout += chunk))
    child.stderr.on('data', chunk => (stderr += chunk))
    child.on('exit', code => resolve({ code, stdout, stderr }))
  })
}

cli.before(async () => {
  daemon = await startDaemon()
})
cli.after(async () => {
  await daemon.stop()
})

cli('the first call enrolls a new operator key into operator.key and runs the admin operation', async () => {
  const first = await relaypay('call', 'NodeGetInfo', '{"nodeId":0}', '--relay', '--data-dir', daemon.dataDir)
  assert.is(first.code, 0, first.stderr + first.stdout)
  assert.is(JSON.parse(first.stdout).status, 'OK')
  const keyFile = path.join(daemon.dataDir, 'operator.key')
  assert.match(fs.readFileSync(keyFile, 'utf8').trim(), /^[0-9a-f]{64}$/)
  assert.is(fs.statSync(keyFile).mode & 0o777, 0o600)
  assert.not.ok(fs.existsSync(path.join(daemon.dataDir, 'admin.enroll')))
  assert.match(first.stderr, /enrolled a new operator key/)
})

cli('later calls use the saved key; an alias name works too', async () => {
  const again = await relaypay('call', 'LndGetInfo', '{"nodeId":0}', '--relay', '--data-dir', daemon.dataDir)
  assert.is(again.code, 0, again.stderr)
  assert.is(JSON.parse(again.stdout).status, 'OK')
  assert.not.match(again.stderr, /enrolled/)
})

cli('another key is not the admin: the ERROR is printed and the exit code is 1', async () => {
  const other = await relaypay('call', 'NodeGetInfo', '{"nodeId":0}', '--relay', '--key', 'ab'.repeat(32), '--data-dir', daemon.dataDir)
  assert.is(other.code, 1)
  assert.is(JSON.parse(other.stdout).reason, 'admin access denied')
})

cli('an operation that is not served over the relay is refused before sending', async () => {
  const httpOnly = await relaypay('call', 'GetApp', '{}', '--relay', '--data-dir', daemon.dataDir)
  assert.is(httpOnly.code, 2)
  assert.match(httpOnly.stderr, /not served over the relay/)
})

cli('with the relay keeping requests private (NIP-42), the CLI answers its challenge and is served', async () => {
  const privateDaemon = await startDaemon({ config: '[nostr]\nrelay_private_requests = true\n' })
  try {
    const call = await relaypay('call', 'NodeGetInfo', '{"nodeId":0}', '--relay', '--data-dir', privateDaemon.dataDir)
    assert.is(call.code, 0, call.stderr + call.stdout)
    assert.is(JSON.parse(call.stdout).status, 'OK')
  } finally {
    await privateDaemon.stop()
  }
})

cli.run()
