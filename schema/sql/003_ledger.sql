-- Double-entry journal. Every balance change is a ledger transaction whose entries sum to zero; user accounts are
-- `user:<user_id>` and mirror users.balance_msat; the outside world is a handful of system accounts
-- (`system:lightning`, `system:chain`, `system:mock`, `system:seized`). (kind, ref) is unique, so one business
-- event (an invoice settling, a payment being refunded) can be posted at most once.
CREATE TABLE ledger_transactions (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  kind        TEXT NOT NULL,
  ref         TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (kind, ref)
);

CREATE TABLE ledger_entries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  transaction_id  INTEGER NOT NULL REFERENCES ledger_transactions(id),
  account         TEXT NOT NULL,
  amount_msat     INTEGER NOT NULL
);
CREATE INDEX ledger_entries_account ON ledger_entries(account);
CREATE INDEX ledger_entries_transaction ON ledger_entries(transaction_id);
