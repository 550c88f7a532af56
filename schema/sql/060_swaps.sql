-- Swaps through Boltz v2 providers (src/swaps/, docs/pub-protocol.md "Swaps"). Secrets a swap needs to finish
-- (the preimage and our key of a transaction swap, our refund key of an invoice swap) are written with the quote,
-- before any money moves, so that a swap paid before a crash can still be claimed or refunded after the restart.
-- Amounts are sats (Bitcoin has no msat); times are unix ms; heights are block heights.

-- Transaction swaps (Lightning → on-chain, Boltz "reverse"): a user's or the operator's Lightning payment of the
-- provider's hold invoice, claimed on-chain to `address`. `user_id` NULL: the operator's (paid by the node).
CREATE TABLE tx_swaps (
  id                  TEXT PRIMARY KEY,               -- swap_operation_id
  user_id             TEXT REFERENCES users(id),
  provider_url        TEXT NOT NULL,                  -- the provider's HTTP base URL
  provider_swap_id    TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('quoted', 'paying', 'claimed', 'failed')),
  preimage            TEXT NOT NULL,                  -- hex; revealed only to the provider, by the claim
  payment_hash        TEXT NOT NULL,
  claim_private_key   TEXT NOT NULL,                  -- hex
  refund_public_key   TEXT NOT NULL,                  -- the provider's key, hex
  swap_tree           TEXT NOT NULL,                  -- serialized tree as the provider sent it (JSON)
  lockup_address      TEXT NOT NULL,
  timeout_block_height INTEGER NOT NULL,
  invoice             TEXT NOT NULL,                  -- the provider's hold invoice
  invoice_amount_sats INTEGER NOT NULL,
  transaction_amount_sats INTEGER NOT NULL,           -- what arrives at `address`
  onchain_amount_sats INTEGER NOT NULL,               -- what the provider locks (amount + our claim fee)
  swap_fee_sats       INTEGER NOT NULL,
  chain_fee_sats      INTEGER NOT NULL,               -- lockup + claim miner fees as the provider quoted
  service_fee_sats    INTEGER NOT NULL,
  address             TEXT,                           -- set when paid
  payment_serial      INTEGER,                        -- the wallet payment (users) that paid the invoice
  lockup_tx_id        TEXT,
  claim_tx_id         TEXT,
  claim_tx_hex        TEXT,                           -- kept so a claim is re-broadcast, never rebuilt differently
  failure_reason      TEXT,
  created_at          INTEGER NOT NULL,
  paid_at             INTEGER,
  completed_at        INTEGER
);
CREATE INDEX tx_swaps_user ON tx_swaps(user_id, created_at);
CREATE INDEX tx_swaps_status ON tx_swaps(status);

-- Invoice swaps (on-chain → Lightning, Boltz "submarine"), the operator's only: the node's on-chain coins are
-- sent to the provider's lockup address and the provider pays the node's invoice.
CREATE TABLE invoice_swaps (
  id                  TEXT PRIMARY KEY,               -- swap_operation_id
  provider_url        TEXT NOT NULL,
  provider_swap_id    TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('quoted', 'paid', 'completed', 'failed', 'refunded')),
  invoice             TEXT NOT NULL,                  -- the node's invoice the provider pays
  payment_hash        TEXT NOT NULL,
  invoice_amount_sats INTEGER NOT NULL,
  refund_private_key  TEXT NOT NULL,                  -- hex
  claim_public_key    TEXT NOT NULL,                  -- the provider's key, hex
  swap_tree           TEXT NOT NULL,
  lockup_address      TEXT NOT NULL,
  expected_amount_sats INTEGER NOT NULL,              -- what the lockup must pay: invoice + swap fee
  swap_fee_sats       INTEGER NOT NULL,
  chain_fee_sats      INTEGER NOT NULL,               -- the node's estimate for the lockup transaction
  sat_per_vbyte       INTEGER NOT NULL,
  timeout_block_height INTEGER NOT NULL,
  lockup_tx_id        TEXT,
  paid_at             INTEGER,
  completed_at        INTEGER,
  failure_reason      TEXT,
  refund_address      TEXT,
  refund_tx_id        TEXT,
  refund_tx_hex       TEXT,
  refund_at           INTEGER,
  created_at          INTEGER NOT NULL
);
CREATE INDEX invoice_swaps_status ON invoice_swaps(status);
