-- State of the embedded (offline) Lightning node: src/node/embedded/. Amounts are INTEGER msat unless the
-- column says sats (on-chain amounts are whole sats). Times are unix ms.

-- One row per fact about the node itself; `pubkey` ties this database to the key file in the data dir.
CREATE TABLE node_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE node_invoices (
  payment_hash TEXT PRIMARY KEY,
  payment_request TEXT NOT NULL UNIQUE,
  preimage TEXT NOT NULL,
  amount_msat INTEGER,                 -- NULL: the invoice lets the payer choose the amount
  description TEXT,
  description_hash TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  settled_at INTEGER,
  received_msat INTEGER,
  settle_index INTEGER UNIQUE,         -- 1, 2, 3… in settlement order, like LND's settle_index
  CHECK ((settled_at IS NULL) = (settle_index IS NULL))
);

-- One row per payment hash; a retry after a failure replaces the failed attempt, as in LND.
CREATE TABLE node_payments (
  payment_hash TEXT PRIMARY KEY,
  payment_request TEXT NOT NULL,
  amount_msat INTEGER NOT NULL,
  fee_msat INTEGER NOT NULL DEFAULT 0,
  route TEXT NOT NULL CHECK (route IN ('self', 'simulated', 'none')),
  status TEXT NOT NULL CHECK (status IN ('in_flight', 'succeeded', 'failed')),
  preimage TEXT,
  failure_reason TEXT,
  created_at INTEGER NOT NULL,
  resolved_at INTEGER
);

CREATE TABLE node_peers (
  pubkey TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  port INTEGER NOT NULL,
  connected_at INTEGER NOT NULL
);

CREATE TABLE node_channels (
  channel_id TEXT PRIMARY KEY,         -- short channel id as LND's decimal uint64
  pending_channel_id TEXT NOT NULL UNIQUE,
  funding_txid TEXT NOT NULL,
  output_index INTEGER NOT NULL,
  peer_pubkey TEXT NOT NULL,
  capacity_sats INTEGER NOT NULL,
  local_balance_msat INTEGER NOT NULL,
  remote_balance_msat INTEGER NOT NULL,
  private INTEGER NOT NULL DEFAULT 0,
  close_address TEXT,
  base_fee_msat INTEGER NOT NULL,
  fee_rate_ppm INTEGER NOT NULL,
  min_htlc_msat INTEGER NOT NULL,
  max_htlc_msat INTEGER NOT NULL,
  time_lock_delta INTEGER NOT NULL,
  opened_at INTEGER NOT NULL,
  closed_at INTEGER,
  closing_txid TEXT,
  closed_height INTEGER,
  UNIQUE (funding_txid, output_index)
);

-- The simulated on-chain wallet: its balance is the sum of delta_sats, never a stored number.
CREATE TABLE node_chain_txs (
  txid TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('initial_funding', 'send', 'receive', 'channel_open', 'channel_close')),
  delta_sats INTEGER NOT NULL,         -- signed change of the wallet balance, fee included
  fee_sats INTEGER NOT NULL DEFAULT 0,
  sat_per_vbyte INTEGER NOT NULL DEFAULT 0,
  address TEXT,
  broadcast_height INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE node_addresses (
  derivation_index INTEGER PRIMARY KEY,
  address_type TEXT NOT NULL,
  address TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

CREATE TABLE node_forwards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  incoming_channel_id TEXT NOT NULL,
  outgoing_channel_id TEXT NOT NULL,
  amount_in_msat INTEGER NOT NULL,
  amount_out_msat INTEGER NOT NULL,
  fee_msat INTEGER NOT NULL
);
CREATE INDEX node_forwards_at ON node_forwards (at);
