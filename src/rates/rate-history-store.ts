// The rate_history table (schema/sql/020_rates.sql): closed days' rates by (currency, day). Rows are only ever
// added; the first rate stored for a day stays, because a closed day's rate cannot change.
import type { Db } from '../store/index.js'
import type { RateSource } from './rate-quote.js'

export interface StoredDayRate {
  currency: string
  date: string
  btcRate: string
  source: Exclude<RateSource, 'spot'>
  fetchedAt: number
}

export interface RateHistoryStore {
  find(currency: string, date: string): StoredDayRate | undefined
  /** Stores closed days' rates in one transaction; days already stored keep their first rate. */
  remember(rows: readonly StoredDayRate[]): void
}

export function rateHistoryStore(db: Db): RateHistoryStore {
  const select = db.prepare(`SELECT currency, date, btc_rate AS btcRate, source, fetched_at AS fetchedAt
                             FROM rate_history WHERE currency = @currency AND date = @date`)
  const insert = db.prepare(`INSERT INTO rate_history (currency, date, btc_rate, source, fetched_at)
                             VALUES (@currency, @date, @btcRate, @source, @fetchedAt)
                             ON CONFLICT (currency, date) DO NOTHING`)
  const insertAll = db.transaction((rows: readonly StoredDayRate[]) => {
    for (const row of rows) insert.run(row)
  })
  return {
    find: (currency, date) => select.get({ currency, date }) as StoredDayRate | undefined,
    remember: rows => insertAll(rows),
  }
}
