// A port already taken, as an operator meets it: `relaypay start` exits non-zero with one line naming the port
// and the setting that picks it, and no stack trace.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import net from 'node:net'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { cliPath, tempDataDir } from '../support/daemon.js'
import { duplicateKeyLines } from '../support/log-keys.js'

/** A loopback port held by this process while `body` runs. */
async function withPortTaken(body: (port: number) => void): Promise<void> {
  const server = net.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  try {
    body((server.address() as net.AddressInfo).port)
  } finally {
    await new Promise(resolve => server.close(resolve))
  }
}

function start(args: string[], env: Record<string, string>) {
  const dataDir = path.join(tempDataDir(), 'data')
  const run = spawnSync(process.execPath, [cliPath, 'start', '--data-dir', dataDir, ...args], {
    env: { ...process.env, RELAYPAY_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(duplicateKeyLines(run.stdout + run.stderr), [])
  return run
}

test('the HTTP port in use: one line naming the port, the setting, the flag and the variable', async () => {
  await withPortTaken(port => {
    const run = start(['--http-port', String(port)], { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0' })
    assert.is(run.status, 1, run.stderr)
    assert.is(run.stderr.trim(), `relaypay: port ${port} is in use: set [http] port, --http-port or RELAYPAY_HTTP_PORT`)
    assert.not.match(run.stdout + run.stderr, /EADDRINUSE|\n\s+at /)
  })
})

test('the embedded relay port in use: one line naming its setting and variable', async () => {
  await withPortTaken(port => {
    const run = start(['--http-port', '0'], { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(port) })
    assert.is(run.status, 1, run.stderr)
    assert.is(run.stderr.trim(), `relaypay: port ${port} is in use: set [nostr] embedded_relay_port or RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT`)
    assert.not.match(run.stdout + run.stderr, /EADDRINUSE|\n\s+at /)
  })
})

test('`relaypay relay` on a port in use: one line naming the port and --port', async () => {
  await withPortTaken(port => {
    const dataDir = path.join(tempDataDir(), 'data')
    const run = spawnSync(process.execPath, [cliPath, 'relay', '--data-dir', dataDir, '--port', String(port)], { encoding: 'utf8', timeout: 30_000 })
    assert.is(run.status, 1, run.stderr)
    assert.is(run.stderr.trim(), `relaypay: port ${port} is in use: choose another with --port`)
    assert.not.match(run.stderr, /EADDRINUSE|\n\s+at /)
  })
})

test.run()
