// One daemon per set of books. A second `relaypay start` on a data dir a live daemon serves is refused in one line
// that names the first one's pid, and leaves the first one's files (daemon.json) alone; a crash (kill -9) frees the
// data dir at once. `relaypay init` writes data_dir = "." into its config, so a backup of that data dir restored
// elsewhere starts on the restored copy when started by its config file, never on the original; a config from an
// older init, with the absolute path, is rewritten by restore.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { cliPath, relaypayArgs, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { until } from '../support/until.js'
import { spawnCollecting } from '../support/spawned.js'

// The data dir is the subject, the same on either engine: SQLite in both halves of a run (so that the archive holds
// the books; with [store] url they are PostgreSQL's to back up).
delete process.env.RELAYPAY_TEST_STORE

const run = promisify(execFile)
const relaypay = async (args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await run(process.execPath, relaypayArgs(cliPath, args), {
      timeout: 120_000,
      env: { ...process.env, RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}
const daemonInfo = (dataDir: string) => JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8')) as { pid: number; url: string }

const test = suite('one daemon per set of books')
const running: TestDaemon[] = []
test.after(async () => {
  for (const daemon of running) if (daemon.process.exitCode === null) await daemon.stop()
})

test('a second start on a live data dir is refused, naming the first; a stop or a crash frees it', async () => {
  const first = await startDaemon()
  running.push(first)
  const before = daemonInfo(first.dataDir)
  const second = await relaypay(['start', '--data-dir', first.dataDir, '--http-port', '0'], { RELAYPAY_NODE_MOCK: 'true' })
  assert.is(second.code, 1)
  assert.is(second.stderr.trim().split('\n').filter(line => line.startsWith('relaypay:')).length, 1, second.stderr)
  assert.match(second.stderr, new RegExp(`^relaypay: cannot start: another relaypay daemon \\(pid ${first.process.pid}\\) serves the data dir ${first.dataDir.replace(/[.]/g, '\\.')}`, 'm'))
  // The first one serves on, and its daemon.json is its own still.
  assert.equal(daemonInfo(first.dataDir), before)
  assert.is((await first.request('GET', '/healthz')).status, 200)

  // A crash frees the data dir at once (the kernel drops the dead process's locks): the next start serves.
  await first.kill()
  const afterCrash = await startDaemon({ dataDir: first.dataDir })
  running.push(afterCrash)
  assert.is(daemonInfo(first.dataDir).pid, afterCrash.process.pid)
  await afterCrash.stop()
  assert.not.ok(fs.existsSync(path.join(first.dataDir, 'daemon.pid')), 'a clean stop removes its pid file')
  const afterStop = await startDaemon({ dataDir: first.dataDir })
  running.push(afterStop)
  await afterStop.stop()
})

/** Runs `relaypay start --config <file>` until it serves; returns the data dir it serves (its daemon.json's) and stops it. */
async function startedByConfig(config: string, candidates: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, RELAYPAY_NODE_MOCK: 'true', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0' }
  delete env.RELAYPAY_DATA_DIR // the config file alone says where
  const child = spawnCollecting(process.execPath, relaypayArgs(cliPath, ['start', '--config', config, '--http-port', '0']), { env })
  try {
    let serving: string | undefined
    await until(() => {
      if (child.exitCode !== null) throw new Error(`the daemon exited:\n${child.output()}`)
      serving = candidates.find(dir => fs.existsSync(path.join(dir, 'daemon.json')) && daemonInfo(dir).pid === child.pid)
      return serving !== undefined
    }, `the daemon started by ${config} to serve`, 60_000)
    return serving!
  } finally {
    await child.stop()
  }
}

test('a data dir made by init, backed up and restored elsewhere, starts on the copy by its own config', async () => {
  const original = path.join(tempDataDir(), 'live')
  assert.is((await relaypay(['init', '--data-dir', original])).code, 0)
  assert.match(fs.readFileSync(path.join(original, 'relaypay.toml'), 'utf8'), /^data_dir = "\."$/m)
  const live = await startDaemon({ dataDir: original })
  running.push(live)
  const archive = path.join(tempDataDir(), 'live.tar.gz')
  assert.is((await relaypay(['backup', archive, '--data-dir', original])).code, 0)
  const copy = path.join(tempDataDir(), 'copy')
  assert.is((await relaypay(['restore', archive, copy])).code, 0)
  // Started by the restored config file alone, it serves the copy; the live daemon is untouched.
  assert.is(await startedByConfig(path.join(copy, 'relaypay.toml'), [copy, original]), copy)
  assert.is(daemonInfo(original).pid, live.process.pid)

  // A config an older init wrote names the data dir by its absolute path: restore rewrites it to ".".
  const older = path.join(tempDataDir(), 'older.tar.gz')
  const config = path.join(original, 'relaypay.toml')
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/^data_dir = "\."$/m, `data_dir = ${JSON.stringify(original)}`))
  assert.is((await relaypay(['backup', older, '--data-dir', original])).code, 0)
  const secondCopy = path.join(tempDataDir(), 'copy2')
  const restored = await relaypay(['restore', older, secondCopy])
  assert.is(restored.code, 0, restored.stderr)
  assert.match(restored.stdout, new RegExp(`relaypay\\.toml: data_dir was ${original.replace(/[.]/g, '\\.')}, now "\\."`))
  assert.match(fs.readFileSync(path.join(secondCopy, 'relaypay.toml'), 'utf8'), /^data_dir = "\."$/m)
  assert.is(await startedByConfig(path.join(secondCopy, 'relaypay.toml'), [secondCopy, original]), secondCopy)
  assert.is(daemonInfo(original).pid, live.process.pid)
  await live.stop()
})

test.run()
