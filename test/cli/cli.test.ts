// The relaypay command as an operator uses it.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { cliPath, relaypayArgs, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { spawnCollecting } from '../support/spawned.js'
import { until } from '../support/until.js'
import { repoRoot } from '../support/paths.js'
import { duplicateKeyLines } from '../support/log-keys.js'

const cli = suite('relaypay CLI')

function relaypay(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 })
  assert.equal(duplicateKeyLines(run.stdout + run.stderr), [])
  return run
}

cli('--help lists the commands with examples', () => {
  const run = relaypay(['--help'])
  assert.is(run.status, 0)
  for (const word of ['start', 'init', 'call', 'Examples:', 'relaypay call AddApp']) assert.ok(run.stdout.includes(word), word)
  const start = relaypay(['start', '--help'])
  for (const flag of ['--config', '--data-dir', '--http-host', '--http-port']) assert.ok(start.stdout.includes(flag), flag)
})

const packageVersion = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version as string

cli('--version, -V and version print the package version and the commit of this checkout', () => {
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' })
  // CI and every worktree here are git checkouts; a tarball without .git is the next test's case.
  assert.is(git.status, 0, 'the repository under test is a git checkout with git installed')
  const expected = `relaypay ${packageVersion} (commit ${git.stdout.trim()})\n`
  assert.match(expected, /^relaypay \d+\.\d+\.\d+ \(commit [0-9a-f]{7,}\)\n$/)
  for (const args of [['--version'], ['-V'], ['version']]) {
    const run = relaypay(args)
    assert.is(run.status, 0, run.stderr)
    assert.is(run.stdout, expected, args.join(' '))
  }
})

cli('without git, or outside a git checkout, the version alone', () => {
  // git not on the PATH: the checkout's commit cannot be read, and that is no error.
  const noGit = relaypay(['--version'], { PATH: '' })
  assert.is(noGit.status, 0, noGit.stderr)
  assert.is(noGit.stdout, `relaypay ${packageVersion}\n`)
  // A copy of the package with no .git (an npm install, a tarball): the version alone, git on the PATH or not.
  const copy = tempDataDir()
  fs.mkdirSync(path.join(copy, 'build/bin'), { recursive: true })
  fs.mkdirSync(path.join(copy, 'build/src/version'), { recursive: true })
  fs.copyFileSync(cliPath, path.join(copy, 'build/bin/relaypay.js'))
  fs.copyFileSync(path.join(repoRoot, 'build/src/version/index.js'), path.join(copy, 'build/src/version/index.js'))
  fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(copy, 'package.json'))
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'))
  const run = spawnSync(process.execPath, [path.join(copy, 'build/bin/relaypay.js'), 'version'], { encoding: 'utf8', cwd: copy })
  assert.is(run.status, 0, run.stderr)
  assert.is(run.stdout, `relaypay ${packageVersion}\n`)
})

cli('init writes a config and private secrets, and refuses to overwrite without --force', () => {
  const dataDir = path.join(tempDataDir(), 'data')
  const first = relaypay(['init', '--data-dir', dataDir])
  assert.is(first.status, 0, first.stderr)
  for (const file of ['relaypay.toml', 'admin.token', '.jwt_secret']) {
    assert.is(fs.statSync(path.join(dataDir, file)).mode & 0o777, 0o600, file)
  }
  assert.ok(!first.stdout.includes(fs.readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim()), 'the token is never printed')
  // "." is the folder the config is in: a copy of the data dir never names the original.
  assert.match(fs.readFileSync(path.join(dataDir, 'relaypay.toml'), 'utf8'), /^data_dir = "\."$/m)
  assert.is(relaypay(['init', '--data-dir', dataDir]).status, 1)
  assert.is(relaypay(['init', '--data-dir', dataDir, '--force']).status, 0)
})

cli('with backend = "lnd" and no LND reachable, start refuses with one line', () => {
  const dataDir = path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir, { recursive: true })
  const macaroon = path.join(dataDir, 'admin.macaroon')
  fs.writeFileSync(macaroon, Buffer.from('0201036c6e64', 'hex'))
  const run = relaypay(['start', '--data-dir', dataDir, '--http-port', '0'], {
    RELAYPAY_NODE_BACKEND: 'lnd',
    RELAYPAY_NODE_LND_SOCKET: '127.0.0.1:1',
    RELAYPAY_NODE_LND_MACAROON_PATH: macaroon,
    RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0',
    RELAYPAY_LOG_LEVEL: 'silent',
  })
  assert.is(run.status, 1, run.stdout + run.stderr)
  const lines = run.stderr.trim().split('\n').filter(line => !line.includes('DEP0123'))
  assert.is(lines.length, 1, run.stderr)
  assert.match(lines[0]!, /^relaypay: cannot start: /)
})

let daemon: TestDaemon
cli('call reaches the running daemon of a data dir with its admin token', async () => {
  daemon = await startDaemon()
  const health = relaypay(['call', 'Health', '--data-dir', daemon.dataDir])
  assert.is(health.status, 0, health.stderr)
  assert.equal(JSON.parse(health.stdout), { status: 'OK' })
  const app = relaypay(['call', 'AddApp', '{"name":"cli-shop","allow_user_creation":false}', '--data-dir', daemon.dataDir])
  assert.is(app.status, 0, app.stdout + app.stderr)
  assert.is(JSON.parse(app.stdout).app.name, 'cli-shop')
  const alias = relaypay(['call', 'LndGetInfo', '{"nodeId":0}', '--data-dir', daemon.dataDir])
  assert.match(alias.stdout, /"status"/)
  // The data dir from the environment start reads, as a service's environment file would give it.
  const byEnv = relaypay(['call', 'AddApp', '{"name":"cli-env-shop","allow_user_creation":false}'], { RELAYPAY_DATA_DIR: daemon.dataDir })
  assert.is(byEnv.status, 0, byEnv.stdout + byEnv.stderr)
})

cli('call and models read the configuration start reads: an admin token set there, and the data dir', async () => {
  const adminToken = 'configured-admin-token-0123456789'
  const configured = await startDaemon({ config: `[auth]\nadmin_token = "${adminToken}"\n` })
  try {
    assert.not.ok(fs.existsSync(path.join(configured.dataDir, 'admin.token')), 'no token file: the config holds it')
    const app = relaypay(['call', 'AddApp', '{"name":"configured-shop","allow_user_creation":false}', '--data-dir', configured.dataDir])
    assert.is(app.status, 0, app.stdout + app.stderr)
    const models = relaypay(['models', 'list', '--json', '--data-dir', configured.dataDir])
    assert.is(models.status, 0, models.stdout + models.stderr)
  } finally {
    await configured.stop()
  }
})

cli('the generated admin token is 0600 and the log names its file, never its value', () => {
  const file = path.join(daemon.dataDir, 'admin.token')
  assert.is(fs.statSync(file).mode & 0o777, 0o600)
  assert.match(daemon.logs(), /"generated the admin token"/)
  assert.ok(daemon.logs().includes(file))
  assert.not.ok(daemon.logs().includes(daemon.adminToken))
})

cli('call exits non-zero on an ERROR answer and on an unknown operation', () => {
  const refused = relaypay(['call', 'AddApp', '{"name":"x","allow_user_creation":false}', '--data-dir', daemon.dataDir, '--token', 'wrong-token'])
  assert.is(refused.status, 1)
  assert.match(refused.stdout, /admin token invalid/)
  const unknown = relaypay(['call', 'NoSuchOperation', '--data-dir', daemon.dataDir])
  assert.is(unknown.status, 2)
  assert.match(unknown.stderr, /unknown operation NoSuchOperation \(see docs\/operations\.md\)/)
  // A near miss names the operation it was likely meant to be.
  for (const [typed, meant] of [['AddAp', 'AddApp'], ['addapp', 'AddApp'], ['GetUserInfos', 'GetUserInfo']]) {
    const near = relaypay(['call', typed!])
    assert.is(near.status, 2)
    assert.match(near.stderr, new RegExp(`^relaypay: unknown operation ${typed}: did you mean ${meant}\\?`))
  }
})

/** Sends `signal` while a request's body is half sent; the request is answered, then the daemon exits 0. */
async function stopsGracefully(d: TestDaemon, signal: NodeJS.Signals) {
  const url = new URL(d.url)
  const body = JSON.stringify({ name: `late-app-${signal}`, allow_user_creation: false })
  const answer = new Promise<string>((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/api/admin/app/add', method: 'POST',
        headers: { authorization: d.adminToken, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      res => {
        let text = ''
        res.on('data', chunk => (text += chunk))
        res.on('end', () => resolve(text))
      },
    )
    req.on('error', reject)
    // Half the body now, the rest after the daemon was told to stop.
    req.write(body.slice(0, 10))
    setTimeout(() => {
      d.process.kill(signal)
      setTimeout(() => req.end(body.slice(10)), 300)
    }, 200)
  })
  assert.is(JSON.parse(await answer).status, 'OK')
  // Not d.stop(): that would send SIGTERM; the signal above must be what ends it.
  const code = await new Promise<number | null>(resolve =>
    d.process.exitCode !== null ? resolve(d.process.exitCode) : d.process.once('exit', resolve),
  )
  assert.is(code, 0)
  await d.stop() // scans the log
  assert.not.ok(fs.existsSync(path.join(d.dataDir, 'daemon.json')))
  assert.match(d.logs(), /"msg":"stopped"/)
}

cli('SIGTERM lets an in-flight request finish, then exits 0', async () => {
  await stopsGracefully(daemon, 'SIGTERM')
})

cli('SIGINT (Ctrl-C) does the same', async () => {
  await stopsGracefully(await startDaemon(), 'SIGINT')
})

cli('a SIGTERM while it is still starting ends it at once with status 0, not by the signal', async () => {
  // The daemon writes its first lines (and daemon.json, its pid) long before its start returns, and a start may wait
  // without end (a standby for the lock, a daemon for its LND): a supervisor that stops it then must see it exit, and
  // exit as asked, not killed by the signal's default.
  const dataDir = path.join(tempDataDir(), 'data')
  const env = { ...process.env, RELAYPAY_NODE_MOCK: 'true', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0', RELAYPAY_LOG_FORMAT: 'json' }
  const child = spawnCollecting(process.execPath, relaypayArgs(cliPath, ['start', '--data-dir', dataDir, '--http-port', '0']), { env })
  await until(() => child.output().includes('"msg"') || child.exitCode !== null, 'the first log line', 60_000)
  process.kill(child.pid!, 'SIGTERM')
  await until(() => !child.running, 'the daemon to exit', 60_000)
  assert.is(child.exitCode, 0, child.output())
})

cli.run()
