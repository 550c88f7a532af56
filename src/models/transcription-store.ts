// The transcription room's tables: the global default model (schema/sql/010_models.sql, one row) and the
// recordings (schema/sql/011_recordings.sql). Written once on the engine-neutral SqlStore: the same
// statements run on SQLite and on PostgreSQL.
import type { SqlStore } from '../store/index.js'

export type OwnerKind = 'user' | 'wallet' | 'operator'

export interface RecordingOwner {
  kind: OwnerKind
  /** User id, wallet id, or '' for the operator. */
  id: string
}

export interface RecordingRow {
  id: string
  owner_kind: OwnerKind
  owner_id: string
  model: string
  language: string
  duration_ms: number
  text: string
  created_at: number
}

export interface TranscriptionStore {
  /** The stored default model, or undefined when none was ever set. */
  defaultModel(): Promise<string | undefined>
  saveDefaultModel(name: string, updatedAt: number): Promise<void>
  /**
   * Inserts the row inside a transaction that `beforeCommit` may still abort by throwing. The hook runs once (the
   * transaction is not retried): it may do what cannot be repeated, such as renaming a file, but must not wait.
   */
  insertRecording(row: RecordingRow, beforeCommit: () => void): Promise<void>
  /** The owner's recording, or undefined (also when it belongs to someone else). */
  recording(owner: RecordingOwner, id: string): Promise<RecordingRow | undefined>
  /** The owner's recordings, newest first. */
  recordings(owner: RecordingOwner, page: { limit: number; offset: number }): Promise<RecordingRow[]>
}

const recordingColumns = 'id, owner_kind, owner_id, model, language, duration_ms, text, created_at'

export function transcriptionStore(sql: SqlStore): TranscriptionStore {
  return {
    async defaultModel() {
      const row = await sql.one<{ default_model: string }>('SELECT default_model FROM transcription_settings WHERE id = 1')
      return row?.default_model
    },
    async saveDefaultModel(name, updatedAt) {
      await sql.run(
        `INSERT INTO transcription_settings (id, default_model, updated_at) VALUES (1, @name, @updatedAt)
         ON CONFLICT (id) DO UPDATE SET default_model = excluded.default_model, updated_at = excluded.updated_at`,
        { name, updatedAt },
      )
    },
    async insertRecording(row, beforeCommit) {
      await sql.transaction(
        async tx => {
          await tx.run(
            `INSERT INTO transcription_recordings (${recordingColumns})
             VALUES (@id, @owner_kind, @owner_id, @model, @language, @duration_ms, @text, @created_at)`,
            { ...row },
          )
          beforeCommit()
        },
        { retries: 0 },
      )
    },
    recording: (owner, id) =>
      sql.one<RecordingRow>(
        `SELECT ${recordingColumns} FROM transcription_recordings WHERE id = ? AND owner_kind = ? AND owner_id = ?`,
        [id, owner.kind, owner.id],
      ),
    recordings: (owner, { limit, offset }) =>
      sql.many<RecordingRow>(
        `SELECT ${recordingColumns} FROM transcription_recordings WHERE owner_kind = ? AND owner_id = ?
         ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
        [owner.kind, owner.id, limit, offset],
      ),
  }
}
