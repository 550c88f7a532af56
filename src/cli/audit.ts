// `relaypay audit`: checks every stored balance against the journal and the conservation of money, on the data
// dir's SQLite database or, with --store-url, on a PostgreSQL one. Safe while the daemon runs (one read-only
// snapshot: a WAL reader on SQLite, REPEATABLE READ on PostgreSQL). Exits 1 on any mismatch.
import path from 'node:path'
import fs from 'node:fs'
import { openStore, postgresSqlStore } from '../store/index.js'
import { auditLedger, type AuditReport } from '../wallet/index.js'

async function auditOf(opts: { dataDir: string; storeUrl?: string }): Promise<AuditReport> {
  if (opts.storeUrl) {
    const store = postgresSqlStore({ url: opts.storeUrl })
    try {
      return await auditLedger(store)
    } finally {
      await store.close()
    }
  }
  const dataDir = path.resolve(opts.dataDir)
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

export async function runAudit(opts: { dataDir: string; storeUrl?: string; json?: boolean }): Promise<void> {
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
