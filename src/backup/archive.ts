// One backup archive of a data dir, taken while the daemon serves: every SQLite database copied with `VACUUM INTO`
// (one read transaction: a consistent snapshot that never blocks the daemon's writers and, unlike the page-by-page
// backup API, never restarts when a payment commits meanwhile), every other file of the data dir's top level
// (secrets, keys, config) copied as is, all in one gzip'd tar with a manifest and a SHA256SUMS file. Restore unpacks
// only what the manifest declares, checks every checksum, and only then moves the data into the target at once.
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import type { ReadEntry } from 'tar'
import { auditLedgerFile, lastLedgerEntryId } from '../wallet/index.js'
import { newestMigration, postgresBooksOf, schemaVersionOf } from '../store/index.js'

/** tar is loaded when an archive is made or read, not with the daemon that may never make one. */
const loadTar = () => import('tar')

export const manifestFormat = 'relaypay-backup/1'
const ledgerFile = 'relaypay.sqlite'
const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1')
/** Files a running daemon keeps beside its databases that are not data: SQLite's own, and the running daemon's. */
const skipped = [/-wal$/, /-shm$/, /-journal$/, /^daemon\.(json|lock|pid)$/, /\.partial-\d+$/, /\.tmp$/]

export interface ManifestFile {
  /** Relative to the data dir. */
  path: string
  kind: 'sqlite' | 'file'
  bytes: number
  sha256: string
}

export interface BackupManifest {
  format: typeof manifestFormat
  relaypay_version: string
  /** The highest migration applied to relaypay.sqlite. */
  schema_version: number
  created_at: string
  /** The ledger as the snapshot holds it: what a restore must give back. */
  ledger: {
    audit_ok: boolean
    wallets: number
    wallets_total_msat: number
    transactions: number
    /** The journal's high-water mark: the last ledger entry in the snapshot. */
    last_entry_id: number
  } | null
  files: ManifestFile[]
}

/** A backup or restore that cannot be done, said so that the operator knows what to do. */
export class BackupError extends Error {
  override name = 'BackupError'
}

const packageRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')

export function relaypayVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version
}

/** The newest migration this build knows (schema/sql's and the extensions'). */
export function knownSchemaVersion(): number {
  return newestMigration()
}

/** Why there is no archive of books kept in PostgreSQL, and what to use instead. */
export function postgresBooksRefusal(database: string): string {
  return (
    `the books are in PostgreSQL (${database}), not in the data dir: relaypay backup archives a data dir's SQLite ` +
    'books and would hold none of them. Back the database up with pg_dump or your provider\'s backups, and copy the ' +
    "data dir's files (secrets, keys, config) with it (docs/backup.md)"
  )
}

export async function createBackup(dataDir: string, archive: string, now = new Date()): Promise<BackupManifest> {
  dataDir = path.resolve(dataDir)
  archive = path.resolve(archive)
  const elsewhere = postgresBooksOf(dataDir)
  if (elsewhere) throw new BackupError(postgresBooksRefusal(elsewhere.database))
  if (!fs.existsSync(path.join(dataDir, ledgerFile))) throw new BackupError(`no relaypay database in ${dataDir}`)
  if (fs.existsSync(archive)) throw new BackupError(`${archive} exists already; name a new file`)
  fs.mkdirSync(path.dirname(archive), { recursive: true, mode: 0o700 })
  // Staged beside the archive (same file system, mode 0700): the copies hold secrets.
  const staging = fs.mkdtempSync(path.join(path.dirname(archive), '.relaypay-backup-'))
  const partial = `${archive}.partial-${process.pid}`
  try {
    fs.mkdirSync(path.join(staging, 'data'), { mode: 0o700 })
    const files: ManifestFile[] = []
    for (const entry of fs.readdirSync(dataDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isFile() || skipped.some(pattern => pattern.test(entry.name))) continue
      const source = path.join(dataDir, entry.name)
      // An archive is never data: with archives written into the data dir, each would hold all the earlier ones.
      if (isGzip(source)) continue
      const copy = path.join(staging, 'data', entry.name)
      const kind = isSqlite(source) ? 'sqlite' : 'file'
      if (kind === 'sqlite') snapshotDatabase(source, copy)
      else fs.copyFileSync(source, copy)
      fs.chmodSync(copy, 0o600)
      files.push({ path: entry.name, kind, ...hashFile(copy) })
    }
    const ledgerCopy = path.join(staging, 'data', ledgerFile)
    const manifest: BackupManifest = {
      format: manifestFormat,
      relaypay_version: relaypayVersion(),
      schema_version: schemaVersionOf(ledgerCopy),
      created_at: now.toISOString(),
      ledger: await ledgerSummary(ledgerCopy),
      files,
    }
    const manifestText = JSON.stringify(manifest, null, 2) + '\n'
    fs.writeFileSync(path.join(staging, 'manifest.json'), manifestText, { mode: 0o600 })
    const sums = [`${sha256(Buffer.from(manifestText))}  manifest.json`, ...files.map(file => `${file.sha256}  data/${file.path}`)]
    fs.writeFileSync(path.join(staging, 'SHA256SUMS'), sums.join('\n') + '\n', { mode: 0o600 })

    // Written under another name with mode 0600 and renamed once complete and synced: a crash leaves no archive
    // that looks whole.
    const out = fs.createWriteStream(partial, { mode: 0o600, flags: 'wx' })
    const tar = await loadTar()
    await pipeline(tar.create({ gzip: true, cwd: staging, portable: true }, ['manifest.json', 'SHA256SUMS', 'data']), out)
    const fd = fs.openSync(partial, 'r')
    fs.fsyncSync(fd)
    fs.closeSync(fd)
    fs.renameSync(partial, archive)
    return manifest
  } finally {
    fs.rmSync(partial, { force: true })
    fs.rmSync(staging, { recursive: true, force: true })
  }
}

export async function restoreBackup(archive: string, target: string): Promise<BackupManifest & { notes: string[] }> {
  archive = path.resolve(archive)
  target = path.resolve(target)
  if (!fs.existsSync(archive)) throw new BackupError(`no archive at ${archive}`)
  if (fs.existsSync(target) && (!fs.statSync(target).isDirectory() || fs.readdirSync(target).length > 0)) {
    throw new BackupError(`${target} is not an empty directory: restore only into a new or empty data dir`)
  }
  fs.mkdirSync(path.dirname(target), { recursive: true })
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.relaypay-restore-'))
  try {
    const manifest = await unpackChecked(archive, staging)
    const data = path.join(staging, 'data')
    fs.mkdirSync(data, { recursive: true, mode: 0o700 })
    fs.chmodSync(data, 0o700)
    for (const file of manifest.files) fs.chmodSync(path.join(data, file.path), 0o600)
    const notes = pointConfigHere(path.join(data, configFile), target)
    // One rename, which replaces an empty target too: the target holds all of the backup or is left as it was.
    fs.renameSync(data, target)
    return { ...manifest, notes }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true })
  }
}

/**
 * A restored config that names a data dir by its absolute path (as `relaypay init` once wrote it) names the original
 * one, whose daemon may be live: `relaypay start --config <restored>/relaypay.toml` would start a second daemon on
 * those books. Such a line is rewritten to ".", this folder (a relative data_dir is relative to its file).
 */
function pointConfigHere(file: string, target: string): string[] {
  if (!fs.existsSync(file)) return []
  const text = fs.readFileSync(file, 'utf8')
  // Only the top level, before the first [section]: where data_dir is a key.
  const top = text.split(/^\[/m)[0]!
  const line = /^data_dir\s*=\s*(["'])(.*)\1[ \t]*(#.*)?$/m.exec(top)
  if (!line || !path.isAbsolute(line[2]!) || path.resolve(line[2]!) === target) return []
  fs.writeFileSync(file, text.replace(line[0], 'data_dir = "."'), { mode: 0o600 })
  return [`${configFile}: data_dir was ${line[2]}, now "." (${target}), so that this copy never starts on the original`]
}

const configFile = 'relaypay.toml'

/** The manifest and SHA256SUMS are small; a larger one is not an archive relaypay wrote. */
const maxListBytes = 1 << 20

/**
 * Unpacks the archive into `staging`, entry by entry, checking each before a byte of it is written: the archive
 * holds manifest.json first, then SHA256SUMS, then `data/` with exactly the files the manifest lists, each of the
 * size it says, once. So a hostile or damaged archive writes nothing it does not declare, and no more bytes than
 * its manifest lists (an archive of a few KB cannot fill the disk), whatever its compression ratio. Then every
 * checksum is checked (checkStaged).
 */
async function unpackChecked(archive: string, staging: string): Promise<BackupManifest> {
  const bad = (why: string) => new BackupError(`${archive} is not a valid relaypay backup: ${why}`)
  const unreadable = (err: Error) => new BackupError(`${archive} is not a readable relaypay backup (corrupt or truncated?): ${err.message}`)
  let manifestText: string | undefined
  let manifest: BackupManifest | undefined
  let sums: string | undefined
  const seen = new Set<string>()
  const writes: Promise<void>[] = []
  const outs: fs.WriteStream[] = []
  fs.mkdirSync(path.join(staging, 'data'), { mode: 0o700 })
  const tar = await loadTar()

  await new Promise<void>((resolve, reject) => {
    let failure: Error | undefined
    const parser = new tar.Parser({ strict: true })
    const fail = (err: Error) => {
      if (failure) return
      failure = err
      parser.abort(err)
      input.destroy()
      for (const out of outs) out.destroy()
      reject(err)
    }
    const small = (entry: ReadEntry, done: (text: string) => void) => {
      if (entry.size > maxListBytes) return fail(bad(`${entry.path} has ${entry.size} bytes`))
      const chunks: Buffer[] = []
      entry.on('data', (chunk: Buffer) => chunks.push(chunk))
      entry.on('end', () => done(Buffer.concat(chunks).toString('utf8')))
    }
    parser.on('entry', (entry: ReadEntry) => {
      if (failure) return entry.resume()
      const name = entry.path.replace(/^\.\//, '')
      if (seen.has(name.replace(/\/$/, ''))) return fail(bad(`${name} is in the archive twice`))
      seen.add(name.replace(/\/$/, ''))
      if (name === 'manifest.json' && entry.type === 'File' && seen.size === 1) {
        return small(entry, text => {
          try {
            manifestText = text
            manifest = parseManifest(text, bad)
          } catch (err) {
            fail(err as Error)
          }
        })
      }
      if (!manifest) return fail(bad(`it does not begin with manifest.json (its first entry is ${JSON.stringify(name)})`))
      if (name === 'SHA256SUMS' && entry.type === 'File') return small(entry, text => (sums = text))
      if (name === 'data/' && entry.type === 'Directory') return entry.resume()
      const file = name.startsWith('data/') ? manifest.files.find(listed => `data/${listed.path}` === name) : undefined
      if (!file) return fail(bad(`${JSON.stringify(name)} is not in the manifest`))
      if (entry.type !== 'File') return fail(bad(`${name} is not a regular file`))
      if (entry.size !== file.bytes) return fail(bad(`${name} has ${entry.size} bytes, the manifest says ${file.bytes}`))
      const out = fs.createWriteStream(path.join(staging, name), { mode: 0o600, flags: 'wx' })
      outs.push(out)
      const written = new Promise<void>((done, failed) => out.on('finish', done).on('error', failed))
      written.catch(() => {}) // awaited below unless the unpacking failed first
      writes.push(written)
      entry.pipe(out)
    })
    parser.on('error', (err: Error) => fail(err instanceof BackupError ? err : unreadable(err)))
    parser.on('end', () => {
      if (!failure) resolve()
    })
    const input = fs.createReadStream(archive)
    input.on('error', err => fail(unreadable(err)))
    input.pipe(parser as unknown as NodeJS.WritableStream)
  })
  await Promise.all(writes)
  if (!manifest || manifestText === undefined) throw bad('manifest.json is missing')
  if (sums === undefined) throw bad('SHA256SUMS is missing')
  return checkStaged(staging, archive, manifestText, manifest, sums)
}

/** The manifest's own shape, checked before any data is unpacked: what the rest of the checks rely on. */
function parseManifest(text: string, bad: (why: string) => BackupError): BackupManifest {
  let manifest: BackupManifest
  try {
    manifest = JSON.parse(text) as BackupManifest
  } catch {
    throw bad('manifest.json is not JSON')
  }
  if (manifest?.format !== manifestFormat) throw bad(`unknown format ${JSON.stringify(manifest?.format)}`)
  if (!Number.isSafeInteger(manifest.schema_version) || manifest.schema_version < 0) {
    throw bad(`the manifest's schema_version is ${JSON.stringify(manifest.schema_version)}, not a migration number`)
  }
  if (!Array.isArray(manifest.files)) throw bad('the manifest lists no files')
  const names = new Set<string>()
  for (const file of manifest.files) {
    if (typeof file?.path !== 'string' || file.path !== path.basename(file.path) || ['', '.', '..'].includes(file.path)) {
      throw bad(`the manifest names an unsafe path ${JSON.stringify(file?.path)}`)
    }
    if (names.has(file.path)) throw bad(`the manifest lists ${file.path} twice`)
    names.add(file.path)
    if (!Number.isSafeInteger(file.bytes) || file.bytes < 0) throw bad(`the manifest gives ${file.path} ${JSON.stringify(file.bytes)} bytes`)
    if (typeof file.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(file.sha256)) throw bad(`the manifest gives ${file.path} no SHA-256`)
  }
  if (!names.has(ledgerFile)) throw bad(`the manifest lists no ${ledgerFile}`)
  return manifest
}

/** Every check a restore makes before it moves the data into place: SHA256SUMS, each file's size and hash. */
function checkStaged(staging: string, archive: string, manifestText: string, manifest: BackupManifest, sums: string): BackupManifest {
  const bad = (why: string) => new BackupError(`${archive} is not a valid relaypay backup: ${why}`)
  const expected = new Map(
    sums
      .trim()
      .split('\n')
      .map(line => line.match(/^([0-9a-f]{64}) {2}(.+)$/))
      .map(match => {
        if (!match) throw bad('SHA256SUMS has a malformed line')
        return [match[2]!, match[1]!] as const
      }),
  )
  if (expected.get('manifest.json') !== sha256(Buffer.from(manifestText))) throw bad('checksum mismatch for manifest.json')
  for (const file of manifest.files) {
    let found: { bytes: number; sha256: string }
    try {
      found = hashFile(path.join(staging, 'data', file.path))
    } catch {
      throw bad(`data/${file.path} is listed in the manifest but missing`)
    }
    if (found.bytes !== file.bytes) throw bad(`data/${file.path} has ${found.bytes} bytes, the manifest says ${file.bytes}`)
    const hash = found.sha256
    if (hash !== file.sha256 || expected.get(`data/${file.path}`) !== hash) throw bad(`checksum mismatch for data/${file.path}`)
  }
  if (manifest.schema_version > knownSchemaVersion()) {
    throw new BackupError(
      `${archive} was made by relaypay ${manifest.relaypay_version} at schema version ${manifest.schema_version}; ` +
        `this relaypay knows up to ${knownSchemaVersion()}: restore it with that version or newer`,
    )
  }
  return manifest
}

/** One read transaction: the copy is the database as of one commit, whatever is written meanwhile. */
function snapshotDatabase(source: string, copy: string): void {
  const db = new Database(source, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.prepare('VACUUM INTO ?').run(copy)
  } finally {
    db.close()
  }
}

const isSqlite = (file: string) => startsWith(file, sqliteHeader)
const isGzip = (file: string) => startsWith(file, gzipMagic)
const gzipMagic = Buffer.from([0x1f, 0x8b])

function startsWith(file: string, magic: Buffer): boolean {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.alloc(magic.length)
    return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(magic)
  } finally {
    fs.closeSync(fd)
  }
}

async function ledgerSummary(file: string): Promise<BackupManifest['ledger']> {
  const report = await auditLedgerFile(file)
  return {
    audit_ok: report.ok,
    wallets: report.wallets,
    wallets_total_msat: report.walletsTotalMsat,
    transactions: report.transactions,
    last_entry_id: lastLedgerEntryId(file),
  }
}

/** Size and SHA-256 of a file read in chunks (a ledger may be gigabytes). */
function hashFile(file: string): { bytes: number; sha256: string } {
  const hash = createHash('sha256')
  const chunk = Buffer.alloc(1 << 20)
  const fd = fs.openSync(file, 'r')
  let bytes = 0
  try {
    for (let read; (read = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; bytes += read) hash.update(chunk.subarray(0, read))
  } finally {
    fs.closeSync(fd)
  }
  return { bytes, sha256: hash.digest('hex') }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
