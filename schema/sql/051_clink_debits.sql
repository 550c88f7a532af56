-- CLINK debits (kind 21002, src/clink/; docs/pub-protocol.md "Debits"). Times are unix ms unless the
-- column says seconds; amounts are sats where the rule says sats (as on the wire).

-- What a user decided about one requesting key: a grant under rules (authorized = 1) or a ban (authorized = 0).
-- The serial is the wire's debit_id.
CREATE TABLE clink_debit_access (
  serial                 INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id                TEXT NOT NULL REFERENCES users(id),   -- the app user's wallet
  requester              TEXT NOT NULL,                        -- hex pubkey of the requesting key
  authorized             INTEGER NOT NULL CHECK (authorized IN (0, 1)),
  expires_at_unix        INTEGER,                              -- expiration rule, unix seconds; NULL: none
  frequency_intervals    INTEGER CHECK (frequency_intervals > 0),
  frequency_interval     TEXT CHECK (frequency_interval IN ('DAY', 'WEEK', 'MONTH')),
  frequency_amount_sats  INTEGER CHECK (frequency_amount_sats >= 0), -- cap per window: amounts + service fees
  created_at             INTEGER NOT NULL,
  updated_at             INTEGER NOT NULL,
  UNIQUE (user_id, requester),
  CHECK ((frequency_intervals IS NULL) = (frequency_interval IS NULL)
     AND (frequency_intervals IS NULL) = (frequency_amount_sats IS NULL))
);

-- Requests waiting for the user's decision (pushed as LiveDebitRequest). Kept in SQLite so that a decision made
-- after a restart (RespondToDebit) still reaches the requester.
CREATE TABLE clink_debit_requests (
  request_id   TEXT PRIMARY KEY,                  -- the kind-21002 event id (the answer's `e` tag)
  user_id      TEXT NOT NULL REFERENCES users(id),
  app_id       TEXT NOT NULL,                     -- the app key the request addressed (answers are signed by it)
  requester    TEXT NOT NULL,
  debit        TEXT NOT NULL,                     -- JSON: the LiveDebitRequest `debit` oneof
  k1           TEXT,
  created_at   INTEGER NOT NULL
);
CREATE INDEX clink_debit_requests_user ON clink_debit_requests(user_id, requester);

-- k1 session ids seen per app user: the same k1 again within five minutes is refused (GFY 1).
CREATE TABLE clink_debit_k1 (
  user_id   TEXT NOT NULL,
  k1        TEXT NOT NULL,
  seen_at   INTEGER NOT NULL,
  PRIMARY KEY (user_id, k1)
);

-- Every payment made for a debit, written in the transaction that debits the wallet (the spend limit), so the
-- window sum of a budget is the payments table joined here: pending ones, and those that succeeded within the
-- window; a payment that failed no longer counts. `answer` follows the requester's answer: `paying` while the
-- request's run waits for the node, `awaiting` when the outcome came later than the run, `answered` once sent.
CREATE TABLE clink_debit_payments (
  payment_hash  TEXT PRIMARY KEY,                 -- payments.payment_hash (no FK: this row is written first)
  user_id       TEXT NOT NULL,
  requester     TEXT NOT NULL,
  app_id        TEXT NOT NULL,
  request_id    TEXT NOT NULL,
  answer        TEXT NOT NULL CHECK (answer IN ('paying', 'awaiting', 'answered')),
  created_at    INTEGER NOT NULL
);
CREATE INDEX clink_debit_payments_requester ON clink_debit_payments(user_id, requester);
CREATE INDEX clink_debit_payments_request ON clink_debit_payments(request_id);
CREATE INDEX clink_debit_payments_unanswered ON clink_debit_payments(answer) WHERE answer <> 'answered';
