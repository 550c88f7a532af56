// Messages of the transcription model registry: type and field names exactly as its interface publishes them.
import { bool, enumOf, int, intParam, list, message, text, z } from '../../../../schema/dsl.js'

/** The registry's bound on a model name: 1 to 32 characters. */
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
 * Progress of a model download (ours, beyond the registry): `not_downloaded` = not cached and no transfer
 * running, `downloaded` = cached, `failed` = the last transfer failed (`error` says why).
 */
export const ModelDownloadProgress = message('ModelDownloadProgress', {
  state: ModelDownloadState,
  received_bytes: int(),
  /** From Content-Length, else the catalogue's size. */
  total_bytes: int(),
  error: text().optional(),
})

// Recordings (ours, beyond the registry): audio transcribed by the local engine, each keeping its model.

/** Most recordings one list answer carries. */
const maxRecordingsPage = 200

export const RecordingCreate = message('RecordingCreate', {
  /**
   * The audio, base64-encoded: a WAV file (PCM 8/16/24/32-bit or float; any channel count and sample rate, converted
   * to the engine's 16 kHz mono). The request body limit (`[http] max_body_bytes`) bounds the clip's length.
   */
  audio_base64: text().min(1),
  /** A supported model; when omitted, the global default at the time of the request. */
  model: text().min(1).max(maxModelNameChars).optional(),
  /** A whisper language code (`en`, `de`, …) or `auto` (the default; `en` for English-only models). */
  language: text().min(1).max(8).optional(),
})

export const Recording = message('Recording', {
  id: text(),
  /** The model it was transcribed with; never changes afterwards. */
  model: text(),
  /** The language transcribed (the detected one when `auto` was asked). */
  language: text(),
  duration_ms: int(),
  text: text(),
  /** ISO 8601, UTC. */
  created_at: text(),
})

export const RecordingIdRequest = message('RecordingIdRequest', {
  id: text().min(1).max(64),
})

export const RecordingListRequest = message('RecordingListRequest', {
  /** Page size, 1 to 200 (default 50). */
  limit: intParam().pipe(z.int().min(1).max(maxRecordingsPage)).optional(),
  /** Recordings to skip, newest first (default 0). */
  offset: intParam().pipe(z.int().min(0)).optional(),
})

export const RecordingList = message('RecordingList', {
  /** The caller's recordings, newest first. */
  recordings: list(Recording),
})
