-- Historical BTC rates of closed UTC days, with which payroll prices a period at its payday's rate (each source's
-- reach: src/rates/historical.ts). A closed day's rate never changes, so a row is written once and read forever
-- after; the current, unclosed day is never stored. btc_rate is fiat units per BTC as exact decimal text, never a
-- float.
CREATE TABLE rate_history (
  currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
  date TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
  btc_rate TEXT NOT NULL CHECK (length(btc_rate) BETWEEN 1 AND 64),
  source TEXT NOT NULL, -- 'kraken' (exchange daily close) or 'coingecko' (aggregator snapshot by date)
  fetched_at INTEGER NOT NULL, -- unix ms
  PRIMARY KEY (currency, date)
) WITHOUT ROWID;
