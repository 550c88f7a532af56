-- The relay transport and the linking room: processed request events (exactly-once across restarts), the
-- enrolled admin key, npub linking tokens, one-time invites, messaging devices and device encryption keys.

-- One row per kind-21000 request event the daemon took on. The row is written before the operation runs, so a
-- redelivered event (a second relay, a resubscription, a restart) never runs it twice; `reply` holds the
-- encrypted reply contents (a JSON array, one item per shard) so a redelivery is answered with the same reply.
-- `reply` is NULL while the request runs, and stays NULL if the daemon stopped in the middle of it.
CREATE TABLE nostr_requests (
  event_id     TEXT PRIMARY KEY,
  requester    TEXT NOT NULL,                 -- hex pubkey of the event author
  app_pubkey   TEXT NOT NULL,                 -- the app key the request addressed (signs the reply)
  created_at   INTEGER NOT NULL,              -- the event's created_at, unix seconds
  received_at  INTEGER NOT NULL,              -- unix ms
  reply        TEXT
);
CREATE INDEX nostr_requests_created ON nostr_requests(created_at);

-- The operator's relay key (upstream keeps it in DATA_DIR/admin.npub); at most one row.
CREATE TABLE nostr_admin (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  pubkey       TEXT NOT NULL,
  enrolled_at  INTEGER NOT NULL
);

-- RequestNPubLinkingToken: 2-minute tokens an app gives to its user, who presents it over the relay.
CREATE TABLE npub_linking_tokens (
  token                TEXT PRIMARY KEY,
  app_user_identifier  TEXT NOT NULL UNIQUE,
  app_id               TEXT NOT NULL,
  expires_at           INTEGER NOT NULL       -- unix ms
);

-- CreateOneTimeInviteLink: single-use tokens that open an app user in one app for the key that presents them.
CREATE TABLE invite_tokens (
  token       TEXT PRIMARY KEY,
  app_id      TEXT NOT NULL,
  sats        INTEGER,                        -- recorded, never credited (upstream)
  used_by     TEXT,                           -- pubkey that used it; NULL while unused
  created_at  INTEGER NOT NULL,
  used_at     INTEGER
);

-- EnrollMessagingToken: a push-messaging token per (app user, device).
CREATE TABLE messaging_devices (
  app_user_identifier       TEXT NOT NULL,
  device_id                 TEXT NOT NULL,
  firebase_messaging_token  TEXT NOT NULL,
  updated_at                INTEGER NOT NULL,
  PRIMARY KEY (app_user_identifier, device_id)
);

-- EncryptionExchange: the public key a device announced, per device id.
CREATE TABLE device_encryption_keys (
  device_id   TEXT PRIMARY KEY,
  public_key  TEXT NOT NULL,
  updated_at  INTEGER NOT NULL
);
