// Messages of the transcription model registry (seed 002, exact type and field names; reference/models.md).
import { bool, enumOf, int, list, message, text } from '../dsl.js'

/** The seed's bound on a model name. */
const maxModelNameChars = 32

export const TranscriptionModel = message('TranscriptionModel', {
  name: text(),
  display_name: text(),
  description: text(),
  /** Parameter size label, e.g. `74M`. */
  params: text(),
  /** Memory estimate label, e.g. `~390 MB`. */
  approx_memory: text(),
  /** Speed label relative to large-v3, e.g. `~7x`. */
  relative_speed: text(),
  is_default: bool(),
  downloaded: bool(),
  /** List: engine installed and downloaded. Download answer: equals `downloaded`. */
  available: bool(),
})

export const ModelsOut = message('ModelsOut', {
  default_model: text(),
  local_engine_installed: bool(),
  models: list(TranscriptionModel),
})

export const DefaultModelUpdate = message('DefaultModelUpdate', {
  model: text().min(1).max(maxModelNameChars),
})

export const DefaultModelOut = message('DefaultModelOut', {
  default_model: text(),
})

/** Whether a name is supported is the handler's check (422 `Unknown model: <name>`); here only its shape. */
export const ModelNameRequest = message('ModelNameRequest', {
  name: text().min(1).max(maxModelNameChars),
})

export const ModelDownloadState = enumOf('ModelDownloadState', ['not_downloaded', 'downloading', 'downloaded', 'failed'])

/**
 * Progress of a model download (beyond the seed, reference/models.md): `not_downloaded` = not cached and no transfer
 * running, `downloaded` = cached, `failed` = the last transfer failed (`error` says why).
 */
export const ModelDownloadProgress = message('ModelDownloadProgress', {
  state: ModelDownloadState,
  received_bytes: int(),
  /** From Content-Length, else the catalogue's size. */
  total_bytes: int(),
  error: text().optional(),
})
