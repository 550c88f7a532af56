// The transcription model registry under its API root, plus a route of ours that reports a download's progress,
// and the operator's deletion of a downloaded model. Any authenticated person may call the registry. Validation
// failures are 422, as the FastAPI-style service it mirrors answers.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { operator } from '../../../schema/sections.js'
import {
  DefaultModelOut, DefaultModelUpdate, ModelDownloadProgress, ModelNameRequest, ModelsOut, Recording, RecordingCreate,
  RecordingIdRequest, RecordingList, RecordingListRequest, TranscriptionModel,
} from './messages/models.js'

const models = { area: 'models', dialect: 'detail', validationStatus: 422 } as const
const base = '/transcription/api/v1'

export const modelsOperations = [
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
  // Recordings: ours, beyond the registry. Each caller (user, wallet or operator) sees only their own.
  operation({
    name: 'RecordingCreate',
    ...models,
    auth: 'member',
    http: { method: 'POST', path: `${base}/recordings`, status: 201 },
    input: RecordingCreate,
    output: Recording,
    summary:
      'Transcribes an uploaded WAV clip with the local engine and stores it with its model (the default when none ' +
      'is named): 422 bad audio or model, 501 engine missing, 409 model not downloaded, 429 queue full.',
  }),
  operation({
    name: 'RecordingGet',
    ...models,
    auth: 'member',
    http: { method: 'GET', path: `${base}/recordings/{id}`, body: 'none' },
    input: RecordingIdRequest,
    output: Recording,
    summary: "Reads one of the caller's recordings; 404 when it does not exist or belongs to someone else.",
  }),
  operation({
    name: 'RecordingList',
    ...models,
    auth: 'member',
    http: { method: 'GET', path: `${base}/recordings`, query: ['limit', 'offset'], body: 'none' },
    input: RecordingListRequest,
    output: RecordingList,
    summary: "Lists the caller's recordings, newest first.",
  }),
  operation({
    name: 'OperatorDeleteModel', ...operator,
    http: { method: 'DELETE', path: '/api/operator/models/{name}', body: 'none' },
    input: ModelNameRequest, output: TranscriptionModel,
    summary: 'Deletes a downloaded transcription model from the cache (409 while it downloads); it can be downloaded again.',
  }),
]
