// What the engine-neutral SqlStore costs on SQLite over the raw better-sqlite3 call it wraps (the same
// file, pragmas and statements, one after the other in one process), and, when a PostgreSQL server is at hand
// (RELAYPAY_TEST_POSTGRES_URL, or Debian's PostgreSQL 15 started for the run), the same work on PostgreSQL: a
// 3-statement money transaction one at a time and 16 in flight. Figures are per operation; compare within one run.
import fs from 'node:fs'
import { openStore, migratePostgres, postgresSqlStore, type SqlStore } from '../src/store/index.js'
import { tempDataDir } from '../test/support/daemon.js'
import { testPostgres } from '../test/support/postgres.js'

export interface EngineRow {
  ops: number
  opsPerSecond: number
  microsecondsPerOp: number
  /** This process's CPU (user + system) per operation: steadier than wall time on a busy shared machine. */
  cpuMicrosecondsPerOp: number
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const row = (ops: number, ms: number, cpuMicros: number): EngineRow => ({
  ops,
  opsPerSecond: Math.round((ops / ms) * 1000),
  microsecondsPerOp: Math.round((ms * 1000 * 100) / ops) / 100,
  cpuMicrosecondsPerOp: Math.round((cpuMicros * 100) / ops) / 100,
})

async function timed(ops: number, work: (i: number) => unknown): Promise<EngineRow> {
  const started = performance.now()
  const cpu = cpuNow()
  for (let i = 0; i < ops; i++) await work(i)
  return row(ops, performance.now() - started, cpuNow() - cpu)
}

function timedSync(ops: number, work: (i: number) => unknown): EngineRow {
  const started = performance.now()
  const cpu = cpuNow()
  for (let i = 0; i < ops; i++) work(i)
  return row(ops, performance.now() - started, cpuNow() - cpu)
}

const selectUser = 'SELECT balance_msat AS "balance" FROM users WHERE id = ?'
const debit = 'UPDATE users SET balance_msat = balance_msat - 1 WHERE id = ? AND balance_msat >= 1'
const credit = 'UPDATE users SET balance_msat = balance_msat + 1 WHERE id = ?'

async function seed(store: SqlStore, users: number): Promise<void> {
  await store.run("INSERT INTO accounts (id, created_at) VALUES ('bench', 1)")
  for (let i = 0; i < users; i++) {
    await store.run(
      "INSERT INTO users (id, account_id, balance_msat, admin_key, invoice_key, created_at) VALUES (?, 'bench', ?, ?, ?, 1)",
      [`u${i}`, 1_000_000_000, `a${i}`, `i${i}`],
    )
  }
}

/**
 * The money transaction of the reference's measurement: read the payer, debit it guarded, credit the payee.
 * Payer and payee are a pair of their own (2i, 2i+1), so transactions in flight together rarely wait on each other.
 */
const moneyTx = (store: SqlStore, i: number, users: number) =>
  store.transaction(async tx => {
    await tx.one(selectUser, [`u${(2 * i) % users}`])
    await tx.run(debit, [`u${(2 * i) % users}`])
    await tx.run(credit, [`u${(2 * i + 1) % users}`])
  })

export async function benchStoreEngine(opts: { ops?: number } = {}) {
  const ops = opts.ops ?? 50_000
  const users = 100
  const dataDir = tempDataDir()
  const opened = openStore({ dataDir, synchronous: 'normal' })
  const { db, sql } = opened
  await seed(sql, users)
  const rawSelect = db.prepare(selectUser)
  const rawDebit = db.prepare(debit)
  const rawCredit = db.prepare(credit)
  const rawTx = db.transaction((i: number) => {
    rawSelect.get(`u${(2 * i) % users}`)
    rawDebit.run(`u${(2 * i) % users}`)
    rawCredit.run(`u${(2 * i + 1) % users}`)
  })
  // Warm both paths, then alternate them twice so neither gets the warmer half of the run.
  timedSync(2000, i => rawSelect.get(`u${i % users}`))
  await timed(2000, i => sql.one(selectUser, [`u${i % users}`]))
  const sqlite: Record<string, EngineRow[]> = { rawSelect: [], sqlStoreSelect: [], rawTransaction: [], sqlStoreTransaction: [] }
  for (let round = 0; round < 3; round++) {
    sqlite.rawSelect!.push(timedSync(ops, i => rawSelect.get(`u${i % users}`)))
    sqlite.sqlStoreSelect!.push(await timed(ops, i => sql.one(selectUser, [`u${i % users}`])))
    sqlite.rawTransaction!.push(timedSync(ops / 5, i => rawTx(i)))
    sqlite.sqlStoreTransaction!.push(await timed(ops / 5, i => moneyTx(sql, i, users)))
  }
  opened.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
  const best = (rows: EngineRow[]) => rows.reduce((a, b) => (a.cpuMicrosecondsPerOp <= b.cpuMicrosecondsPerOp ? a : b))
  const bestOf = Object.fromEntries(Object.entries(sqlite).map(([name, rows]) => [name, best(rows)]))
  const overhead = (wrapped: EngineRow, raw: EngineRow) => Math.round((wrapped.cpuMicrosecondsPerOp - raw.cpuMicrosecondsPerOp) * 100) / 100
  const result: Record<string, unknown> = {
    sqlite: {
      ...bestOf,
      overheadCpuMicrosecondsPerSelect: overhead(bestOf.sqlStoreSelect!, bestOf.rawSelect!),
      overheadCpuMicrosecondsPerTransaction: overhead(bestOf.sqlStoreTransaction!, bestOf.rawTransaction!),
    },
  }
  const postgres = await testPostgres().catch(() => undefined)
  if (!postgres) return { ...result, postgres: 'no server: set RELAYPAY_TEST_POSTGRES_URL or install postgresql-15' }
  const store = postgresSqlStore({ url: postgres.url, max: 16 })
  try {
    await migratePostgres(store)
    await seed(store, users)
    const pgOps = Math.min(ops / 10, 5000)
    const inFlight = async (n: number, count: number) => {
      let next = 0
      const started = performance.now()
      const cpu = cpuNow()
      await Promise.all(Array.from({ length: n }, async () => {
        for (let i = next++; i < count; i = next++) await moneyTx(store, i, users)
      }))
      return row(count, performance.now() - started, cpuNow() - cpu)
    }
    result.postgres = {
      select: await timed(pgOps, i => store.one(selectUser, [`u${i % users}`])),
      transaction: await timed(pgOps / 2, i => moneyTx(store, i, users)),
      transaction16InFlight: await inFlight(16, pgOps),
    }
  } finally {
    await store.close()
    await postgres.close()
  }
  return result
}
