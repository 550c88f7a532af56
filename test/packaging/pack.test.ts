// `npm pack` yields a package that runs. The suite packs the current build (--ignore-scripts: the prepack build
// would rewrite build/ under the tests running beside this one), checks the file list, unpacks it into an empty
// folder and starts the daemon from there with the repository's node_modules, probing /readyz; `relaypay init` and
// `backup` run from the package too. A full `npm install --offline <tarball>` compiles better-sqlite3 (about
// 2.5 minutes on two cores), so it runs only with TEST_NPM_INSTALL=1 (and TEST_FILE_TIMEOUT_MS=900000),
// with the commands of docs/Dockerfile; the npm cache must hold every dependency (an earlier online install).
// systemd-analyze verify checks docs/relaypay.service where systemd is installed.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { execFile, spawn, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { repoRoot } from '../support/paths.js'
import { migrationFiles, packageMigrationFolders, readDatabaseFile } from '../../src/store/index.js'
import { extensionDescriptors } from '../../src/extensions/descriptors.js'
import { tempDataDir } from '../support/daemon.js'
import { scanLogKeysOf } from '../support/log-keys.js'

const run = promisify(execFile)
const test = suite('packaging')

let tarball: string
let files: string[]

test.before(async () => {
  const dest = tempDataDir()
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: repoRoot })
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[]
  tarball = path.join(dest, packed!.filename)
  files = packed!.files.map(file => file.path)
})

test('the package holds what start needs and nothing of the workshop', () => {
  for (const needed of [
    'package.json',
    'build/bin/relaypay.js',
    'build/src/daemon.js',
    'build/schema/catalogue.js',
    'build/src/store/checkpoint-worker.js',
    'build/src/wallet/audit-worker.js',
    'build/src/nostr-crypto/schnorr-worker.js',
    'build/console/console.js',
    'build/console/console.css',
    'build/console/order-page.js',
    'config.example.toml',
    'docs/backup.md',
    'docs/relaypay.service',
    'docs/Dockerfile',
  ]) {
    assert.ok(files.includes(needed), needed)
  }
  // Every migration, the core's and each extension's: a start reads them from the package.
  const migrations = packageMigrationFolders().flatMap(dir =>
    fs.readdirSync(dir).filter(name => name.endsWith('.sql')).map(name => path.relative(repoRoot, path.join(dir, name)).split(path.sep).join('/')),
  )
  assert.ok(migrations.some(file => file.startsWith('src/extensions/')), 'the extensions\' migrations are listed')
  for (const file of migrations) assert.ok(files.includes(file), file)
  const stray = files.filter(file => /^(build\/)?(test|bench)\/|\.map$|\.ts$|tsbuildinfo|node_modules|^data\//.test(file))
  assert.equal(stray, [])
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'))
  assert.is(manifest.scripts.prepack, 'npm run build --silent')
  assert.is(manifest.bin.relaypay, 'build/bin/relaypay.js')
})

/**
 * Runs `command start` in an empty folder; resolves once /readyz answers 200, then sends SIGTERM to the daemon (the
 * pid in daemon.json: npx does not pass a SIGTERM on, it leaves the daemon running) and waits for `command` to end.
 */
async function startsAndStops(command: string[], cwd: string): Promise<{ ready: any; code: number | null; consoleStatus: number }> {
  let consoleStatus = 0
  const dataDir = path.join(cwd, 'data')
  const child = spawn(command[0]!, [...command.slice(1), 'start', '--data-dir', dataDir, '--http-port', '0'], {
    cwd,
    env: { ...process.env, RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  scanLogKeysOf(child, `the packaged daemon in ${dataDir}`)
  let output = ''
  child.stdout.on('data', chunk => (output += chunk))
  child.stderr.on('data', chunk => (output += chunk))
  const exited = new Promise<number | null>(resolve => child.on('exit', resolve))
  try {
    const started = Date.now()
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output}`)
      if (Date.now() - started > 60_000) throw new Error(`no ready answer within 60 s:\n${output}`)
      try {
        const { url, pid } = JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8'))
        const res = await fetch(`${url}/readyz`)
        if (res.status === 200) {
          const ready = await res.json()
          // The console is served from the package's own build, with no network.
          consoleStatus = (await fetch(`${url}/console/assets/console.js`)).status
          process.kill(pid, 'SIGTERM')
          return { ready, code: await exited, consoleStatus }
        }
      } catch {
        // not listening yet
      }
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}

test('unpacked into an empty folder, the package starts, answers ready, and stops cleanly', async () => {
  const folder = tempDataDir()
  await run('tar', ['xzf', tarball, '-C', folder])
  const pkg = path.join(folder, 'package')
  // The repository's modules stand in for an install (see the header); nothing else of the checkout is reachable.
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(pkg, 'node_modules'), 'dir')
  const bin = path.join(pkg, 'build/bin/relaypay.js')
  const cwd = fs.mkdtempSync(path.join(folder, 'run-'))
  const { ready, code, consoleStatus } = await startsAndStops([process.execPath, bin], cwd)
  assert.is(ready.ready, true)
  assert.is(code, 0)
  assert.is(consoleStatus, 200, "the console's script from the package")
  // Every migration came with the package, the extensions' folders' too (a start without them would not notice).
  const applied = readDatabaseFile(path.join(cwd, 'data', 'relaypay.sqlite'), db =>
    db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
  )
  assert.equal(applied, migrationFiles(packageMigrationFolders()).map(file => file.version))
  // init finds config.example.toml inside the package; backup finds its tar module and the migrations.
  const init = spawnSync(process.execPath, [bin, 'init', '--data-dir', path.join(cwd, 'fresh')], { encoding: 'utf8' })
  assert.is(init.status, 0, init.stderr)
  // The whole example, assembled: every extension's section comes with the core's (the package holds no fragment).
  const written = fs.readFileSync(path.join(cwd, 'fresh', 'relaypay.toml'), 'utf8')
  for (const { id, config } of extensionDescriptors) if (config) assert.ok(written.includes(`\n[${id}]\n`), `init's config documents [${id}]`)
  const backup = spawnSync(process.execPath, [bin, 'backup', path.join(cwd, 'b.tar.gz'), '--data-dir', path.join(cwd, 'data')], { encoding: 'utf8' })
  assert.is(backup.status, 0, backup.stderr)
})

test('docs/relaypay.service passes systemd-analyze verify (where systemd is installed)', () => {
  const found = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' })
  if (found.error) return // no systemd here: nothing to verify with
  const unit = fs.readFileSync(path.join(repoRoot, 'docs/relaypay.service'), 'utf8')
  for (const line of ['NoNewPrivileges=true', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/relaypay', 'Restart=on-failure']) {
    assert.ok(unit.includes(`\n${line}\n`), line)
  }
  const dir = tempDataDir()
  fs.copyFileSync(path.join(repoRoot, 'docs/relaypay.service'), path.join(dir, 'relaypay.service'))
  const verify = spawnSync('systemd-analyze', ['verify', path.join(dir, 'relaypay.service')], { encoding: 'utf8' })
  // verify exits 0 on unknown keys and bad values, but names them on stderr.
  assert.is(verify.status, 0, verify.stderr)
  assert.is(verify.stderr.trim(), '')
})

test('docs/Dockerfile: multi-stage, a non-root user, a HEALTHCHECK on /readyz, the commands this test runs', () => {
  const dockerfile = fs.readFileSync(path.join(repoRoot, 'docs/Dockerfile'), 'utf8')
  assert.is(dockerfile.match(/^FROM /gm)!.length, 2)
  assert.match(dockerfile, /^USER relaypay$/m)
  assert.match(dockerfile, /^HEALTHCHECK [^\n]*\n[^\n]*\/readyz/m)
  for (const step of ['npm ci', 'npm pack', 'npm install --omit=dev']) assert.ok(dockerfile.includes(step), step)
})

test('npm install --offline of the tarball into an empty folder, then npx relaypay start (TEST_NPM_INSTALL=1)', async () => {
  if (process.env.TEST_NPM_INSTALL !== '1') return
  const folder = tempDataDir()
  fs.writeFileSync(path.join(folder, 'package.json'), '{"name":"relaypay-app","private":true}\n')
  // The same install as docs/Dockerfile; node-gyp takes this node's headers (none are downloaded offline).
  const nodedir = path.resolve(path.dirname(process.execPath), '..')
  await run('npm', ['install', '--offline', '--omit=dev', '--no-audit', '--no-fund', tarball], {
    cwd: folder,
    env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? nodedir },
    timeout: 15 * 60_000,
  })
  // As the operator runs it: npx finds the package's bin in node_modules/.bin and forwards SIGTERM to it.
  const { ready, code } = await startsAndStops(['npx', '--offline', 'relaypay'], folder)
  assert.is(ready.ready, true)
  assert.is(code, 0)
})

test.run()
