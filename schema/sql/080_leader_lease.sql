-- The fencing epoch of the active daemon (docs/postgres.md, "One active daemon: lock, heartbeat, fencing"). On
-- PostgreSQL the daemon that takes the active-daemon lock bumps epoch before it serves, and every money transaction
-- starts by reading it FOR SHARE: a daemon that lost the lock without knowing (frozen, cut off) finds a newer epoch
-- and writes nothing. SQLite has one daemon per file and never reads it; the table is here so that both engines
-- keep one schema.
CREATE TABLE leader_lease (
  id        INTEGER PRIMARY KEY CHECK (id = 1),
  epoch     INTEGER NOT NULL CHECK (epoch >= 1),
  holder    TEXT NOT NULL,                 -- who took it: host, pid and start time, for the operator
  taken_at  INTEGER NOT NULL               -- unix ms
);
