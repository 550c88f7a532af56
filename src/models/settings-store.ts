// The registry's one persisted setting: the global default model (schema/sql/010_models.sql).
import type { Db } from '../store/index.js'

export interface ModelSettingsStore {
  /** The stored default, or undefined when none was ever set. */
  defaultModel(): string | undefined
  saveDefaultModel(name: string, updatedAt: number): void
}

export function modelSettingsStore(db: Db): ModelSettingsStore {
  const select = db.prepare('SELECT default_model FROM transcription_settings WHERE id = 1')
  const upsert = db.prepare(`INSERT INTO transcription_settings (id, default_model, updated_at)
                             VALUES (1, @name, @updatedAt)
                             ON CONFLICT (id) DO UPDATE SET default_model = @name, updated_at = @updatedAt`)
  return {
    defaultModel() {
      const row = select.get() as { default_model: string } | undefined
      return row?.default_model
    },
    saveDefaultModel(name, updatedAt) {
      upsert.run({ name, updatedAt })
    },
  }
}
