// `relaypay store copy --from <data dir> --to <postgres url>`: moves an installation from SQLite to PostgreSQL
// (src/store/copy.ts), then proves the copy: every table's row count and the full ledger audit on both sides,
// which must agree (wallets, money held, journal, system accounts). Exit 0 only when they do.
import path from 'node:path'
import fs from 'node:fs'
import { copySqliteToPostgres, openDatabaseFile, postgresSqlStore, sqliteSqlStore, StoreCopyError, type SqlStore } from '../store/index.js'
import { auditLedger, type AuditReport } from '../wallet/index.js'
import { runningDaemonPid } from '../daemon-files.js'
import { commandConfig, type CommandConfigOptions } from './command-config.js'

export interface StoreCopyCliOptions extends CommandConfigOptions {
  /** The data dir; default: the configuration's. */
  from?: string
  /** The PostgreSQL database; default: the configuration's `[store] url`. */
  to?: string
  json?: boolean
}

export async function runStoreCopy(opts: StoreCopyCliOptions): Promise<void> {
  const fail = (message: string, code = 2) => {
    process.stderr.write(`relaypay: ${message}\n`)
    process.exitCode = code
  }
  // What is not given is read from the configuration `start` reads: the operator who has already named the new
  // database in [store] url (or RELAYPAY_STORE_URL) copies into it with no more words.
  const configured = opts.from === undefined || opts.to === undefined ? await commandConfig({ config: opts.config, dataDir: opts.from ?? opts.dataDir }) : undefined
  const dataDir = path.resolve(opts.from ?? configured!.data_dir)
  const to = opts.to ?? configured!.store.url
  if (to === undefined) return fail('name the PostgreSQL database to copy into: --to postgres://…, or [store] url in the configuration (RELAYPAY_STORE_URL)')
  const file = path.join(dataDir, 'relaypay.sqlite')
  if (!fs.existsSync(file)) return fail(`no relaypay database in ${dataDir}`)
  if (!/^postgres(ql)?:\/\//.test(to)) return fail(`--to takes a postgres:// URL (got ${to.replace(/\/\/[^@/]*@/, '//…@')})`)
  const pid = runningDaemonPid(dataDir)
  if (pid !== undefined) return fail(`a daemon (pid ${pid}) is serving ${dataDir}: stop it first, or what it writes after the copy is lost`)
  const target = postgresSqlStore({ url: to })
  try {
    const say = (line: string) => !opts.json && process.stdout.write(line + '\n')
    const copied = await copySqliteToPostgres({ sqliteFile: file, target, onTable: ({ table, rows }) => say(`copied ${table}: ${rows} rows`) })
    const source = openDatabaseFile(file)
    let check: CopyCheck
    try {
      check = await compare(sqliteSqlStore(source), target, copied.map(c => c.table))
    } finally {
      source.close()
    }
    if (opts.json) process.stdout.write(JSON.stringify({ copied, ...check }, null, 2) + '\n')
    else {
      for (const m of check.countMismatches) say(`MISMATCH ${m.table}: ${m.sqlite} rows in SQLite, ${m.postgres} in PostgreSQL`)
      say(`audit SQLite: ${summary(check.audits.sqlite)}`)
      say(`audit PostgreSQL: ${summary(check.audits.postgres)}`)
      say(check.ok ? 'the copy is identical: tables, balances and journal agree' : 'the copy DIFFERS from the source (see above)')
    }
    process.exitCode = check.ok ? 0 : 1
  } catch (err) {
    if (err instanceof StoreCopyError) return fail(err.message, 1)
    throw err
  } finally {
    await target.close()
  }
}

interface CopyCheck {
  ok: boolean
  countMismatches: { table: string; sqlite: number; postgres: number }[]
  audits: { sqlite: AuditReport; postgres: AuditReport }
}

async function compare(sqlite: SqlStore, postgres: SqlStore, tables: string[]): Promise<CopyCheck> {
  const countMismatches: CopyCheck['countMismatches'] = []
  for (const table of tables) {
    const count = async (store: SqlStore) => (await store.one<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`))!.n
    const [a, b] = [await count(sqlite), await count(postgres)]
    if (a !== b) countMismatches.push({ table, sqlite: a, postgres: b })
  }
  const audits = { sqlite: await auditLedger(sqlite), postgres: await auditLedger(postgres) }
  // The audit lists system accounts in name order on both engines, so their text compares.
  const same = (r: AuditReport) => JSON.stringify([r.wallets, r.walletsTotalMsat, r.transactions, r.systemAccounts])
  return { ok: countMismatches.length === 0 && audits.sqlite.ok && audits.postgres.ok && same(audits.sqlite) === same(audits.postgres), countMismatches, audits }
}

function summary(r: AuditReport): string {
  return `${r.ok ? 'clean' : 'FAILED'}, ${r.wallets} wallets holding ${r.walletsTotalMsat} msat, ${r.transactions} ledger transactions`
}
