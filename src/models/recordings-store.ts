// Rows of transcription_recordings (schema/sql/011_recordings.sql).
import type { Db } from '../store/index.js'

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

export interface RecordingsStore {
  /** Inserts the row inside a transaction that `beforeCommit` may still abort by throwing. */
  insert(row: RecordingRow, beforeCommit: () => void): void
  /** The owner's recording, or undefined (also when it belongs to someone else). */
  get(owner: RecordingOwner, id: string): RecordingRow | undefined
  /** The owner's recordings, newest first. */
  list(owner: RecordingOwner, page: { limit: number; offset: number }): RecordingRow[]
}

export function recordingsStore(db: Db): RecordingsStore {
  const insert = db.prepare(`INSERT INTO transcription_recordings
      (id, owner_kind, owner_id, model, language, duration_ms, text, created_at)
    VALUES (@id, @owner_kind, @owner_id, @model, @language, @duration_ms, @text, @created_at)`)
  const select = db.prepare(`SELECT * FROM transcription_recordings
    WHERE id = ? AND owner_kind = ? AND owner_id = ?`)
  const page = db.prepare(`SELECT * FROM transcription_recordings
    WHERE owner_kind = ? AND owner_id = ?
    ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
  const insertAndCommit = db.transaction((row: RecordingRow, beforeCommit: () => void) => {
    insert.run(row)
    beforeCommit()
  })
  return {
    insert: (row, beforeCommit) => insertAndCommit(row, beforeCommit),
    get: (owner, id) => select.get(id, owner.kind, owner.id) as RecordingRow | undefined,
    list: (owner, { limit, offset }) => page.all(owner.kind, owner.id, limit, offset) as RecordingRow[],
  }
}
