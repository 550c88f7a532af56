// `relaypay restore` of archives that are not what `relaypay backup` writes: each is refused before its data is
// unpacked beyond what its manifest declares, and the target is left exactly as it was (absent, or an empty
// folder a retry can still use). The forms: a file far larger inside the archive than the manifest says (a
// compression bomb: a few KB that would unpack to 64 MiB), an entry the manifest does not list, the same entry twice,
// a manifest without a numeric schema_version, and an archive that does not begin with its manifest.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import * as tar from 'tar'
import { openStore } from '../../src/store/index.js'
import { restoreBackup } from '../../src/backup/index.js'
import { cliPath, tempDataDir } from '../support/daemon.js'

const run = promisify(execFile)
const restore = async (archive: string, target: string) => {
  try {
    await run(process.execPath, [cliPath, 'restore', archive, target], { timeout: 120_000 })
    return { code: 0, stderr: '' }
  } catch (err) {
    const failed = err as { code?: number; stderr?: string }
    return { code: failed.code ?? -1, stderr: failed.stderr ?? '' }
  }
}
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')

const test = suite('a restore is strict and leaves the target as it was')
let work: string
/** A real archive of a data dir with fresh books, unpacked: manifest.json, SHA256SUMS and data/. */
let unpacked: string
let good: string

test.before(async () => {
  work = tempDataDir()
  const dataDir = path.join(work, 'data')
  openStore({ dataDir }).close()
  fs.writeFileSync(path.join(dataDir, 'admin.token'), 'token\n')
  good = path.join(work, 'good.tar.gz')
  const made = await run(process.execPath, [cliPath, 'backup', good, '--data-dir', dataDir])
  assert.match(made.stdout + made.stderr, /./)
  unpacked = path.join(work, 'unpacked')
  fs.mkdirSync(unpacked)
  await tar.extract({ file: good, cwd: unpacked })
})

/** Packs a copy of the unpacked archive after `change` edits it, with these entries in this order. */
async function repacked(name: string, change: (dir: string) => void, entries = ['manifest.json', 'SHA256SUMS', 'data']): Promise<string> {
  const dir = path.join(work, `${name}-files`)
  fs.cpSync(unpacked, dir, { recursive: true })
  change(dir)
  const archive = path.join(work, `${name}.tar.gz`)
  await tar.create({ gzip: true, cwd: dir, file: archive, portable: true }, entries)
  return archive
}

/** Rewrites the manifest with `edit` and SHA256SUMS to match, so only what `edit` did is wrong. */
function editManifest(dir: string, edit: (manifest: Record<string, unknown>) => void): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'))
  edit(manifest)
  const text = JSON.stringify(manifest, null, 2) + '\n'
  fs.writeFileSync(path.join(dir, 'manifest.json'), text)
  const sums = fs.readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').replace(/^[0-9a-f]{64}(?= {2}manifest\.json$)/m, sha256(text))
  fs.writeFileSync(path.join(dir, 'SHA256SUMS'), sums)
}

/** Bytes this process has handed to write(2) so far. */
const written = () => Number(/^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1])

/** The target (an empty folder here) is as it was, and no staging folder is left beside it. */
function assertUntouched(target: string): void {
  assert.equal(fs.readdirSync(target), [], 'the target is still empty')
  assert.equal(fs.readdirSync(path.dirname(target)).filter(entry => entry.startsWith('.relaypay-restore-')), [])
}

function emptyTarget(name: string): string {
  const target = path.join(tempDataDir(), name)
  fs.mkdirSync(target)
  return target
}

test('a file much larger in the archive than in the manifest is refused without unpacking it', async () => {
  // 64 MiB of zeros gzip to about 64 KB: the ledger's entry claims them, the manifest (checksums intact) does not.
  const bomb = await repacked('bomb', dir => fs.writeFileSync(path.join(dir, 'data', 'relaypay.sqlite'), Buffer.alloc(64 << 20)))
  assert.ok(fs.statSync(bomb).size < 1 << 20, 'the archive is small')
  const target = emptyTarget('bomb-target')
  const before = written()
  const err = await restoreBackup(bomb, target).then(() => undefined, (e: Error) => e)
  const unpackedBytes = written() - before
  assert.match(err?.message ?? 'restored', /data\/relaypay\.sqlite has 67108864 bytes, the manifest says \d+/)
  assert.ok(unpackedBytes < 4 << 20, `${unpackedBytes} bytes written for an archive whose manifest lists under 1 MiB`)
  assertUntouched(target)
  const cli = await restore(bomb, target)
  assert.is(cli.code, 1)
  assert.match(cli.stderr, /^relaypay: .*not a valid relaypay backup: data\/relaypay\.sqlite has 67108864 bytes/)
  assertUntouched(target)
})

test('an entry the manifest does not list, at the top or in data/, is refused', async () => {
  for (const [name, file] of [['top', 'notes.txt'], ['inside', path.join('data', 'extra.txt')]] as const) {
    const archive = await repacked(`unknown-${name}`, dir => fs.writeFileSync(path.join(dir, file), 'hello\n'), ['manifest.json', 'SHA256SUMS', 'data', ...(name === 'top' ? [file] : [])])
    const target = emptyTarget(`unknown-${name}-target`)
    const refused = await restore(archive, target)
    assert.is(refused.code, 1, refused.stderr)
    assert.match(refused.stderr, new RegExp(`"${file.replace('.', '\\.')}" is not in the manifest`))
    assertUntouched(target)
  }
})

test('the same entry twice is refused', async () => {
  const archive = await repacked('twice', () => {}, ['manifest.json', 'SHA256SUMS', 'data', 'data/admin.token'])
  const target = emptyTarget('twice-target')
  const refused = await restore(archive, target)
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /data\/admin\.token is in the archive twice/)
  assertUntouched(target)
})

test('a manifest without a numeric schema_version is refused', async () => {
  for (const [name, value] of [['missing', undefined], ['text', '83'], ['fraction', 1.5]] as const) {
    const archive = await repacked(`schema-${name}`, dir => editManifest(dir, manifest => (manifest.schema_version = value)))
    const target = emptyTarget(`schema-${name}-target`)
    const refused = await restore(archive, target)
    assert.is(refused.code, 1, `${name}: ${refused.stderr}`)
    assert.match(refused.stderr, /schema_version is .*not a migration number/)
    assertUntouched(target)
  }
})

test('an archive that does not begin with its manifest is refused', async () => {
  const archive = await repacked('order', () => {}, ['data', 'manifest.json', 'SHA256SUMS'])
  const target = emptyTarget('order-target')
  const refused = await restore(archive, target)
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /does not begin with manifest\.json/)
  assertUntouched(target)
})

test('after a refused restore the same empty target takes the good archive', async () => {
  const target = emptyTarget('retry-target')
  // The same size, another secret: only the checksum tells.
  const bad = await repacked('retry-bad', dir => fs.writeFileSync(path.join(dir, 'data', 'admin.token'), 'tokeN\n'))
  const refused = await restore(bad, target)
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /checksum mismatch for data\/admin\.token/)
  assertUntouched(target)
  const restored = await restore(good, target)
  assert.is(restored.code, 0, restored.stderr)
  assert.equal(fs.readdirSync(target).sort(), ['admin.token', 'relaypay.sqlite'])
  assert.is(fs.readFileSync(path.join(target, 'admin.token'), 'utf8'), 'token\n')
  assert.is(fs.statSync(target).mode & 0o777, 0o700)
  assert.is(fs.statSync(path.join(target, 'relaypay.sqlite')).mode & 0o777, 0o600)
})

test.run()
