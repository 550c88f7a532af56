// The internal-payments bench (bench/payments.ts) with the books on PostgreSQL beside the same work
// on SQLite, in one run on one machine. The PostgreSQL rows add the server's CPU per payment (its processes, from
// /proc), so the whole cost of a payment is visible and not only the daemon's share of it.
import { benchPayments, type PaymentBenchResult } from './payments.js'
import { onBenchPostgres } from './postgres-server.js'

type Rows = Record<string, PaymentBenchResult>

/** The PostgreSQL rows at `concurrencies` (`skipped` and why when there is no server). */
export function benchPaymentsOnPostgres(opts: { paymentsPerLevel: number; concurrencies?: number[] }) {
  return onBenchPostgres(postgres => benchPayments({ synchronous: 'full', paymentsPerLevel: opts.paymentsPerLevel, concurrencies: opts.concurrencies, postgres }))
}

/**
 * Per concurrency, PostgreSQL against SQLite: payments/s as a ratio, and CPU per payment, the daemon's alone on
 * SQLite (its database work is in-process) against the daemon's plus the server's on PostgreSQL.
 */
export function postgresBesideSqlite(sqlite: Rows, postgres: Rows | undefined) {
  if (!postgres) return undefined
  const ratio = (a: number | null | undefined, b: number | null | undefined) =>
    a == null || b == null || b === 0 ? null : Math.round((a / b) * 1000) / 1000
  return Object.fromEntries(
    Object.keys(sqlite)
      .filter(level => postgres[level])
      .map(level => {
        const lite = sqlite[level]!
        const pg = postgres[level]!
        return [level, {
          paymentsPerSecond: { sqlite: lite.paymentsPerSecond, postgres: pg.paymentsPerSecond, ratio: ratio(pg.paymentsPerSecond, lite.paymentsPerSecond) },
          cpuMsPerPayment: {
            sqliteDaemon: lite.daemonCpuMsPerPayment,
            postgresDaemon: pg.daemonCpuMsPerPayment,
            postgresServer: pg.postgresServerCpuMsPerPayment ?? null,
            postgresTotal: pg.daemonAndPostgresCpuMsPerPayment ?? null,
            ratio: ratio(pg.daemonAndPostgresCpuMsPerPayment, lite.daemonCpuMsPerPayment),
          },
        }]
      }),
  )
}
