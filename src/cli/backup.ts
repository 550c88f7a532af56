// `relaypay backup <archive>` and `relaypay restore <archive> <data dir>`: safe while the daemon runs (backup) and
// only into an empty data dir (restore). Both exit 1 with one line on stderr when they cannot. Backup reads the
// configuration `start` reads, for the data dir and for where the books are: of books in PostgreSQL it writes no
// archive and says what to use instead.
import { BackupError, createBackup, postgresBooksRefusal, restoreBackup, type BackupManifest } from '../backup/index.js'
import { databaseName } from '../store/index.js'
import { commandConfig, type CommandConfigOptions } from './command-config.js'

export async function runBackup(archive: string, opts: CommandConfigOptions & { json?: boolean }): Promise<void> {
  const config = await commandConfig(opts)
  await report(
    async () => {
      // The books are not in the data dir: an archive of it would hold none of them.
      if (config.store.url) throw new BackupError(postgresBooksRefusal(databaseName(config.store.url)))
      return createBackup(config.data_dir, archive)
    },
    opts.json,
    () => `backup written to ${archive}`,
    describe,
  )
}

export async function runRestore(archive: string, dataDir: string, opts: { json?: boolean }): Promise<void> {
  await report(
    () => restoreBackup(archive, dataDir),
    opts.json,
    manifest => [`restored ${archive} into ${dataDir}`, ...(manifest as { notes?: string[] }).notes ?? []].join('\n'),
    describe,
  )
}

function describe(manifest: BackupManifest): string {
  const ledger = manifest.ledger
  return [
    `taken ${manifest.created_at} by relaypay ${manifest.relaypay_version}, schema version ${manifest.schema_version}`,
    `files: ${manifest.files.map(file => `${file.path} (${file.bytes} bytes)`).join(', ')}`,
    ...(ledger
      ? [
          `ledger: ${ledger.wallets} wallets holding ${ledger.wallets_total_msat} msat, ${ledger.transactions} transactions, ` +
            `last entry ${ledger.last_entry_id}, audit ${ledger.audit_ok ? 'clean' : 'FAILED'}`,
        ]
      : []),
  ].join('\n')
}

async function report(
  run: () => Promise<BackupManifest>,
  json: boolean | undefined,
  headline: (manifest: BackupManifest) => string,
  details: (manifest: BackupManifest) => string,
): Promise<void> {
  try {
    const manifest = await run()
    process.stdout.write(json ? JSON.stringify(manifest, null, 2) + '\n' : `${headline(manifest)}\n${details(manifest)}\n`)
  } catch (err) {
    if (!(err instanceof BackupError)) throw err
    process.stderr.write(`relaypay: ${err.message}\n`)
    process.exitCode = 1
  }
}
