// The daemon's node flags (src/lifecycle/node-flags.ts) are where the daemon is launched — the relaypay command's
// first line and `npm start` — and a daemon started without them says so in its log.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { spawnCollecting } from '../support/spawned.js'
import { until } from '../support/until.js'
import { repoRoot } from '../support/paths.js'
import { cliPath, tempDataDir } from '../support/daemon.js'
import { daemonNodeFlags, missingNodeFlags } from '../../src/lifecycle/node-flags.js'

const test = suite('node flags')

test('the relaypay command and npm start carry the daemon node flags', () => {
  const flags = daemonNodeFlags.join(' ')
  assert.is(fs.readFileSync(path.join(repoRoot, 'bin/relaypay.ts'), 'utf8').split('\n', 1)[0], `#!/usr/bin/env -S node ${flags}`)
  assert.is(fs.readFileSync(cliPath, 'utf8').split('\n', 1)[0], `#!/usr/bin/env -S node ${flags}`)
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
  assert.is(manifest.scripts.start, `node ${flags} build/bin/relaypay.js start`)
})

test('missingNodeFlags reads the command line and NODE_OPTIONS', () => {
  assert.equal(missingNodeFlags([], ''), [...daemonNodeFlags])
  assert.equal(missingNodeFlags([...daemonNodeFlags], ''), [])
  assert.equal(missingNodeFlags([], `--trace-warnings ${daemonNodeFlags.join(' ')}`), [])
  // node takes underscores for dashes in V8 flags
  assert.equal(missingNodeFlags(daemonNodeFlags.map(flag => flag.replace(/-/g, '_').replace(/^__/, '--')), ''), [])
})

/** Starts `command args` with a fresh data dir until the HTTP server listens; returns what it logged by then. */
async function logOfStart(command: string, args: string[]): Promise<string> {
  const dataDir = path.join(tempDataDir(), 'data')
  const child = spawnCollecting(command, [...args, 'start', '--data-dir', dataDir, '--http-port', '0'], {
    env: { ...process.env, RELAYPAY_NODE_MOCK: 'true', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0', NODE_OPTIONS: '' },
  })
  try {
    await until(() => {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${child.output()}`)
      return child.output().includes('"http listening"')
    }, 'the daemon to listen', 60_000)
    return child.output()
  } finally {
    await child.stop()
  }
}

test('run as a command (its first line), the daemon has its flags and warns of nothing', async () => {
  // npm makes a package's bin executable when it installs it; the build leaves that to the installer.
  fs.chmodSync(cliPath, 0o755)
  const output = await logOfStart(cliPath, [])
  assert.not.ok(output.includes('started without node'), output)
})

test('started by plain node, the daemon warns once, naming the flag', async () => {
  const output = await logOfStart(process.execPath, [cliPath])
  const warnings = output.split('\n').filter(line => line.includes('started without node'))
  assert.is(warnings.length, 1, output)
  assert.equal(JSON.parse(warnings[0]!).missing, [...daemonNodeFlags])
})

test.run()
