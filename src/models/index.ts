// The transcription model registry room (seed 002): what the daemon, the HTTP wiring and the CLI may use.
export {
  createModelRegistry,
  engineMissingDetail,
  type DefaultModelOut,
  type DownloadProgress,
  type ModelRegistry,
  type ModelRegistryOptions,
  type ModelsOut,
  type TranscriptionModel,
} from './registry.js'
export { type CatalogueEntry, fallbackDefaultModel, modelFileName, whisperCatalogue } from './catalogue.js'
export { defaultModelsBaseUrl } from './base-url.js'
export { detectLocalEngine, fixedEngine, localEnginePackage, type LocalEngine } from './engine.js'
export { modelHandlers } from './handlers.js'
export { followDownload, formatProgressBar, type FollowDownloadOptions } from './progress-bar.js'
