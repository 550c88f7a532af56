// The transcription model registry (seed 002) under reference/models.md's API root, plus the progress route
// models.md adds. Any authenticated person may call it. Validation failures are 422, as the seed's
// FastAPI-style service answers.
import { operation } from '../operation.js'
import { Empty } from '../dsl.js'
import {
  DefaultModelOut,
  DefaultModelUpdate,
  ModelDownloadProgress,
  ModelNameRequest,
  ModelsOut,
  TranscriptionModel,
} from '../messages/models.js'

const base = '/transcription/api/v1'
const models = { area: 'models', dialect: 'detail', validationStatus: 422 } as const

export const modelOperations = [
  operation({
    name: 'ModelList',
    ...models,
    auth: 'member',
    http: { method: 'GET', path: `${base}/models`, body: 'none' },
    input: Empty,
    output: ModelsOut,
    summary: 'Lists the supported transcription models with cache and availability, and the global default.',
  }),
  operation({
    name: 'ModelDefaultGet',
    ...models,
    auth: 'member',
    http: { method: 'GET', path: `${base}/models/default`, body: 'none' },
    input: Empty,
    output: DefaultModelOut,
    summary: 'Reads the global default transcription model.',
  }),
  operation({
    name: 'ModelDefaultSet',
    ...models,
    auth: 'member',
    http: { method: 'PUT', path: `${base}/models/default` },
    input: DefaultModelUpdate,
    output: DefaultModelOut,
    summary: 'Sets the global default model for future recordings; 422 for an unsupported name.',
  }),
  operation({
    name: 'ModelDownload',
    ...models,
    auth: 'member',
    http: { method: 'POST', path: `${base}/models/{name}/download`, body: 'none' },
    input: ModelNameRequest,
    output: TranscriptionModel,
    summary: 'Downloads a model into the local cache and answers when it is cached (may take minutes).',
  }),
  operation({
    name: 'ModelDownloadProgress',
    ...models,
    auth: 'member',
    http: { method: 'GET', path: `${base}/models/{name}/download`, body: 'none' },
    input: ModelNameRequest,
    output: ModelDownloadProgress,
    summary: 'Reports the progress of a model download in bytes.',
  }),
]
