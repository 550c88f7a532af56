// `npm start` builds only when the build is missing or older than a source (scripts/build-if-stale.mjs, its prestart):
// checked on a checkout of its own in a temp dir, by the script's `--check`, which says what it would do.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { repoRoot } from '../support/paths.js'
import { tempDataDir } from '../support/daemon.js'

const script = path.join(repoRoot, 'scripts', 'build-if-stale.mjs')

function check(root: string): { code: number | null; said: string } {
  const run = spawnSync(process.execPath, [script, '--check'], { cwd: root, encoding: 'utf8' })
  return { code: run.status, said: run.stdout.trim() }
}

function checkout(): { root: string; touch(file: string, secondsAgo: number): void } {
  const root = tempDataDir()
  const touch = (file: string, secondsAgo: number) => {
    const full = path.join(root, file)
    fs.mkdirSync(path.dirname(full), { recursive: true })
    if (!fs.existsSync(full)) fs.writeFileSync(full, '')
    const at = new Date(Date.now() - secondsAgo * 1000)
    fs.utimesSync(full, at, at)
  }
  return { root, touch }
}

test('no build yet: it builds', () => {
  const { root, touch } = checkout()
  touch('src/daemon.ts', 60)
  assert.equal(check(root), { code: 1, said: 'stale: no build yet' })
})

test('a build newer than every source is current; a source edited after it is named', () => {
  const { root, touch } = checkout()
  for (const file of ['src/daemon.ts', 'src/wallet/index.ts', 'schema/catalogue.ts', 'package.json', 'tsconfig.json']) touch(file, 120)
  touch('build/.build-stamp', 60)
  assert.equal(check(root), { code: 0, said: 'current' })
  touch('src/wallet/index.ts', 0)
  assert.equal(check(root), { code: 1, said: `stale: ${path.join('src', 'wallet', 'index.ts')}` })
})

test('a changed dependency or compiler setting makes the build stale too', () => {
  for (const file of ['package-lock.json', 'tsconfig.json']) {
    const { root, touch } = checkout()
    touch('src/daemon.ts', 120)
    touch(file, 120)
    touch('build/.build-stamp', 60)
    assert.is(check(root).code, 0)
    touch(file, 0)
    assert.equal(check(root), { code: 1, said: `stale: ${file}` })
  }
})

test('the build writes its stamp as its last step, so a failed build is never taken for current', () => {
  const build = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  assert.match(build.build!, /&& node -e "require\('node:fs'\)\.writeFileSync\('build\/\.build-stamp', ''\)"$/)
  assert.is(build.prestart, 'node scripts/build-if-stale.mjs')
})

test.run()
