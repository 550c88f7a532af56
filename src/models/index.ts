// The transcription model registry room: what the daemon, the HTTP wiring and the CLI may use.
export {
  createModelRegistry,
  engineMissingDetail,
  type DefaultModelOut,
  type DownloadProgress,
  type ModelRegistry,
  type ModelRegistryOptions,
  type ModelsOut,
  type RecordingModel,
  type TranscriptionModel,
} from './registry.js'
export { type CatalogueEntry, fallbackDefaultModel, modelFileName, whisperCatalogue } from './catalogue.js'
export { defaultModelsBaseUrl } from './base-url.js'
export { detectLocalEngine, fixedEngine, localEnginePackage, type LocalEngine } from './engine.js'
export { modelHandlers } from './handlers/models.js'
export { createRecordings, type Recordings, type RecordingsOptions, type RecordingOut } from './recordings.js'
export {
  createTranscriber,
  importLocalEngine,
  type Transcriber,
  type TranscriberOptions,
  type WhisperEngineModule,
} from './transcriber.js'
export { readTestCatalogue } from './catalogue-file.js'
export { toEngineAudio, AudioRejected, engineSampleRate } from './wav-audio.js'
export { followDownload, formatProgressBar, type FollowDownloadOptions } from './progress-bar.js'
export { startModelRoom } from './room.js'
