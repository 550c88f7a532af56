-- CLINK manage (kind 21003, docs/pub-protocol.md "Manage"; src/clink/): which keys a user lets manage
-- offers, and the requests waiting for the user's decision. Times are unix ms.

-- A grant (banned = 0) or a ban (banned = 1) of one key by one user. `expires_at` 0: never.
CREATE TABLE clink_manage_grants (
  serial      INTEGER PRIMARY KEY AUTOINCREMENT,   -- upstream's manage_id
  user_id     TEXT NOT NULL REFERENCES users(id),
  npub        TEXT NOT NULL,                       -- hex pubkey of the managing key
  banned      INTEGER NOT NULL DEFAULT 0,
  expires_at  INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  UNIQUE (user_id, npub)
);

-- A request from a key without a grant, pushed to the user (GetLiveManageRequests) and replayed when the user
-- authorizes the key. One per requester: a second one is answered "Rate Limited" while this one waits. Kept in
-- SQLite, so an approval after a restart still replays the request.
CREATE TABLE clink_manage_parked (
  requester   TEXT PRIMARY KEY,                    -- hex pubkey
  request_id  TEXT NOT NULL,                       -- the kind-21003 event id (the answer's e tag)
  app_id      TEXT NOT NULL REFERENCES apps(id),   -- whose key answers
  user_id     TEXT NOT NULL REFERENCES users(id),  -- the user asked
  body        TEXT NOT NULL,                       -- the decrypted request, JSON
  created_at  INTEGER NOT NULL,                    -- the event's created_at, unix s
  parked_at   INTEGER NOT NULL
);
