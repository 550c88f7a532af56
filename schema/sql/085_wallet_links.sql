-- A wallet link opens the wallet page (/wallet/#<secret>) of one app user's wallet, like LNbits' wallet URLs; the
-- operator hands it out and revokes it. At most one per wallet: a new link replaces the one before. The secret is
-- `wl_<id>_<verifier>`: the id finds the row, and only the SHA-256 of the verifier is kept, compared in constant time.
CREATE TABLE wallet_links (
  id             TEXT PRIMARY KEY,                        -- 16 hex, the public half of the secret
  user_id        TEXT NOT NULL UNIQUE REFERENCES users(id),
  verifier_hash  TEXT NOT NULL,                           -- hex SHA-256 of the verifier
  created_at     INTEGER NOT NULL
);
