// One backup archive of a data dir, taken while the daemon serves: every SQLite database copied with `VACUUM INTO`
// (one read transaction: a consistent snapshot that never blocks the daemon's writers and, unlike the page-by-page
// backup API, never restarts when a payment commits meanwhile), every other file of the data dir's top level
// (secrets, keys, config) copied as is, all in one gzip'd tar with a manifest and a SHA256SUMS file. Restore checks
// every checksum before it writes a byte into the target.
import fs from 'node:fs'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import * as tar from 'tar'
import { auditLedgerFile, lastLedgerEntryId } from '../wallet/index.js'
import { schemaVersionOf } from '../store/index.js'

export const manifestFormat = 'relaypay-backup/1'
const ledgerFile = 'relaypay.sqlite'
const sqliteHeader = Buffer.from('SQLite format 3\0', 'latin1')
/** Files a running daemon keeps beside its databases that are not data: SQLite's own, and the running daemon's. */
const skipped = [/-wal$/, /-shm$/, /-journal$/, /^daemon\.json$/, /\.partial-\d+$/]

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

/** The newest migration this build knows (schema/sql/NNN_*.sql). */
export function knownSchemaVersion(): number {
  return Math.max(0, ...fs.readdirSync(path.join(packageRoot, 'schema/sql')).map(name => Number(name.match(/^(\d+)_/)?.[1] ?? 0)))
}

export async function createBackup(dataDir: string, archive: string, now = new Date()): Promise<BackupManifest> {
  dataDir = path.resolve(dataDir)
  archive = path.resolve(archive)
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

export async function restoreBackup(archive: string, target: string): Promise<BackupManifest> {
  archive = path.resolve(archive)
  target = path.resolve(target)
  if (!fs.existsSync(archive)) throw new BackupError(`no archive at ${archive}`)
  if (fs.existsSync(target) && (!fs.statSync(target).isDirectory() || fs.readdirSync(target).length > 0)) {
    throw new BackupError(`${target} is not an empty directory: restore only into a new or empty data dir`)
  }
  fs.mkdirSync(path.dirname(target), { recursive: true })
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.relaypay-restore-'))
  try {
    try {
      await tar.extract({ file: archive, cwd: staging, strict: true, preservePaths: false })
    } catch (err) {
      throw new BackupError(`${archive} is not a readable relaypay backup (corrupt or truncated?): ${(err as Error).message}`)
    }
    const manifest = checkStaged(staging, archive)
    fs.mkdirSync(target, { recursive: true, mode: 0o700 })
    fs.chmodSync(target, 0o700)
    for (const file of manifest.files) {
      const dest = path.join(target, file.path)
      fs.renameSync(path.join(staging, 'data', file.path), dest)
      fs.chmodSync(dest, 0o600)
    }
    return manifest
  } finally {
    fs.rmSync(staging, { recursive: true, force: true })
  }
}

/** Every check a restore makes before it moves a file: the manifest, SHA256SUMS, each file's size and hash. */
function checkStaged(staging: string, archive: string): BackupManifest {
  const bad = (why: string) => new BackupError(`${archive} is not a valid relaypay backup: ${why}`)
  // Only regular files and folders: a link could point a restore outside the target.
  for (const entry of fs.readdirSync(staging, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) throw bad(`${entry.name} is neither a file nor a folder`)
  }
  let manifestText: string
  let manifest: BackupManifest
  try {
    manifestText = fs.readFileSync(path.join(staging, 'manifest.json'), 'utf8')
    manifest = JSON.parse(manifestText) as BackupManifest
  } catch {
    throw bad('manifest.json is missing or not JSON')
  }
  if (manifest.format !== manifestFormat) throw bad(`unknown format ${JSON.stringify(manifest.format)}`)
  if (!Array.isArray(manifest.files) || !manifest.files.some(file => file.path === ledgerFile)) throw bad(`the manifest lists no ${ledgerFile}`)
  let sums: string
  try {
    sums = fs.readFileSync(path.join(staging, 'SHA256SUMS'), 'utf8')
  } catch {
    throw bad('SHA256SUMS is missing')
  }
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
  const listed = new Set<string>()
  for (const file of manifest.files) {
    if (typeof file.path !== 'string' || file.path !== path.basename(file.path) || ['', '.', '..'].includes(file.path)) {
      throw bad(`the manifest names an unsafe path ${JSON.stringify(file.path)}`)
    }
    listed.add(file.path)
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
  const present = fs.existsSync(path.join(staging, 'data')) ? fs.readdirSync(path.join(staging, 'data')) : []
  const extra = present.filter(name => !listed.has(name))
  if (extra.length > 0) throw bad(`data/${extra[0]} is not in the manifest`)
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

function isSqlite(file: string): boolean {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.alloc(sqliteHeader.length)
    return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(sqliteHeader)
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
