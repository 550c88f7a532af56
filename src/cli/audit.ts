// `relaypay audit`: checks every stored balance against the journal and the conservation of money, on the books the
// daemon keeps: the data dir's SQLite database, or the PostgreSQL one its configuration names (`[store] url`, the
// file `start` reads or RELAYPAY_STORE_URL), or the one --store-url names. Safe while the daemon runs (one read-only
// snapshot: a WAL reader on SQLite, REPEATABLE READ on PostgreSQL). Exits 1 on any mismatch.
import path from 'node:path'
import fs from 'node:fs'
import { openStore, postgresBooksOf, postgresSqlStore } from '../store/index.js'
import { auditLedger, type AuditReport } from '../wallet/index.js'
import { commandConfig, type CommandConfigOptions } from './command-config.js'

async function auditOf(opts: CommandConfigOptions & { storeUrl?: string }): Promise<AuditReport> {
  const config = await commandConfig(opts)
  const url = opts.storeUrl ?? config.store.url
  if (url) {
    const store = postgresSqlStore({ url })
    try {
      return await auditLedger(store)
    } finally {
      await store.close()
    }
  }
  const dataDir = config.data_dir
  // The SQLite file of a data dir whose daemon keeps its books in PostgreSQL holds none: auditing it would say
  // "clean, 0 wallets" of books that are elsewhere.
  const elsewhere = postgresBooksOf(dataDir)
  if (elsewhere) {
    process.stderr.write(
      `relaypay: the books of ${dataDir} are in PostgreSQL (${elsewhere.database}, its daemon's start at ${elsewhere.since}), ` +
        'not in its SQLite file: audit them with the configuration that names the database (--config, or RELAYPAY_STORE_URL) or with --store-url\n',
    )
    process.exit(2)
  }
  if (!fs.existsSync(path.join(dataDir, 'relaypay.sqlite'))) {
    process.stderr.write(`relaypay: no database in ${dataDir}\n`)
    process.exit(2)
  }
  const store = openStore({ dataDir })
  try {
    return await auditLedger(store.sql)
  } finally {
    store.close()
  }
}

export async function runAudit(opts: CommandConfigOptions & { storeUrl?: string; json?: boolean }): Promise<void> {
  const report = await auditOf(opts)
  if (opts.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n')
  else {
    const sats = (msat: number) => `${(msat / 1000).toFixed(3)} sat`
    process.stdout.write(
      [
        `audit ${report.ok ? 'clean' : 'FAILED'}`,
        `wallets: ${report.wallets}, holding ${sats(report.walletsTotalMsat)}`,
        `ledger transactions: ${report.transactions}`,
        ...Object.entries(report.systemAccounts).map(([account, msat]) => `${account}: ${sats(msat)}`),
        ...report.balanceMismatches.map(m => `MISMATCH wallet ${m.userId}: stored ${m.storedMsat} msat, journal ${m.journalMsat} msat`),
        ...report.unbalancedTransactions.map(t => `UNBALANCED transaction ${t.id} (${t.kind} ${t.ref}): ${t.sumMsat} msat`),
        ...report.paymentMismatches.map(p => `PAYMENT ${p.serial} (${p.status}): ${p.problem}`),
        ...report.invoiceMismatches.map(i => `INVOICE ${i.paymentHash ?? 'of no hash'}: ${i.problem}`),
      ].join('\n') + '\n',
    )
  }
  process.exitCode = report.ok ? 0 : 1
}
