-- Transcription model registry settings. One row holding the global default model; no row means the
-- catalogue's fallback default. Recordings keep their own model name, so changing this never rewrites them.
CREATE TABLE transcription_settings (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  default_model TEXT NOT NULL CHECK (length(default_model) BETWEEN 1 AND 32),
  updated_at INTEGER NOT NULL -- unix ms
);
