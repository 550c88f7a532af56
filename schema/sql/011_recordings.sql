-- Transcribed recordings (ours, beyond the model registry). Each row keeps the model it was transcribed with: changing
-- the global default (transcription_settings) never rewrites it. The audio is the file <data_dir>/recordings/<id>.wav
-- (16 kHz mono PCM), written before the row.
CREATE TABLE transcription_recordings (
  id TEXT PRIMARY KEY,
  -- Who uploaded it: a user (user id), a wallet (wallet id) or the operator (owner_id '').
  owner_kind TEXT NOT NULL CHECK (owner_kind IN ('user', 'wallet', 'operator')),
  owner_id TEXT NOT NULL,
  model TEXT NOT NULL CHECK (length(model) BETWEEN 1 AND 32),
  language TEXT NOT NULL,
  duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL -- unix ms
);
CREATE INDEX transcription_recordings_by_owner
  ON transcription_recordings (owner_kind, owner_id, created_at DESC, id DESC);
