// The rate_history table (schema/sql/020_rates.sql): closed days' rates by (currency, day). Rows are only ever
// added; the first rate stored for a day stays, because a closed day's rate cannot change. Written once on the
// engine-neutral SqlStore: the same statements run on SQLite and on PostgreSQL.
import type { SqlStore } from '../store/index.js'
import type { RateSource } from './rate-quote.js'

export interface StoredDayRate {
  currency: string
  date: string
  btcRate: string
  source: Exclude<RateSource, 'spot'>
  fetchedAt: number
}

export interface RateHistoryStore {
  find(currency: string, date: string): Promise<StoredDayRate | undefined>
  /** Stores closed days' rates in one transaction; days already stored keep their first rate. */
  remember(rows: readonly StoredDayRate[]): Promise<void>
}

// Aliases are quoted: PostgreSQL folds unquoted names to lower case.
const select = `SELECT currency, date, btc_rate AS "btcRate", source, fetched_at AS "fetchedAt"
                FROM rate_history WHERE currency = @currency AND date = @date`
const insert = `INSERT INTO rate_history (currency, date, btc_rate, source, fetched_at)
                VALUES (@currency, @date, @btcRate, @source, @fetchedAt)
                ON CONFLICT (currency, date) DO NOTHING`

export function rateHistoryStore(sql: SqlStore): RateHistoryStore {
  return {
    find: (currency, date) => sql.one<StoredDayRate>(select, { currency, date }),
    async remember(rows) {
      if (rows.length === 0) return
      await sql.transaction(async tx => {
        for (const row of rows) {
          await tx.run(insert, {
            currency: row.currency,
            date: row.date,
            btcRate: row.btcRate,
            source: row.source,
            fetchedAt: row.fetchedAt,
          })
        }
      })
    },
  }
}
