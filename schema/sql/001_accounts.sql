-- Accounts own wallets; a wallet is a balance-holding user of the payments service. An account's further wallets
-- (the wallet host's CreateWallet) are users of their own, each with its balance and keys.
CREATE TABLE accounts (
  id          TEXT PRIMARY KEY,
  created_at  INTEGER NOT NULL
);

CREATE TABLE users (
  serial        INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT NOT NULL UNIQUE,                 -- user_id = wallet id, 64 hex
  account_id    TEXT NOT NULL REFERENCES accounts(id),
  name          TEXT NOT NULL DEFAULT '',
  balance_msat  INTEGER NOT NULL DEFAULT 0 CHECK (balance_msat >= 0),
  locked        INTEGER NOT NULL DEFAULT 0,
  admin_key     TEXT NOT NULL UNIQUE,
  invoice_key   TEXT NOT NULL UNIQUE,
  created_at    INTEGER NOT NULL,
  last_seen_at  INTEGER
);
CREATE INDEX users_account ON users(account_id);

CREATE TABLE apps (
  id                   TEXT PRIMARY KEY,             -- 64 hex
  name                 TEXT NOT NULL UNIQUE,
  owner_user_id        TEXT NOT NULL UNIQUE REFERENCES users(id),
  allow_user_creation  INTEGER NOT NULL DEFAULT 0,
  nostr_private_key    TEXT NOT NULL,
  nostr_public_key     TEXT NOT NULL UNIQUE,
  created_at           INTEGER NOT NULL
);

CREATE TABLE app_users (
  serial            INTEGER PRIMARY KEY AUTOINCREMENT,
  identifier        TEXT NOT NULL UNIQUE,            -- globally unique, as upstream
  user_id           TEXT NOT NULL UNIQUE REFERENCES users(id),
  app_id            TEXT NOT NULL REFERENCES apps(id),
  nostr_public_key  TEXT UNIQUE,
  callback_url      TEXT NOT NULL DEFAULT '',
  topic_id          TEXT NOT NULL UNIQUE,
  created_at        INTEGER NOT NULL
);
CREATE INDEX app_users_app ON app_users(app_id);

CREATE TABLE account_extensions (
  account_id  TEXT NOT NULL REFERENCES accounts(id),
  extension   TEXT NOT NULL,
  enabled_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, extension)
);
