// Recordings (ours, beyond the model registry): an uploaded clip is converted to the engine's format, transcribed by
// the local engine with the named model or the current default, and stored — the row in the database, the audio as
// <data_dir>/recordings/<id>.wav. The model is fixed at upload; changing the default later never rewrites it.
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from 'pino'
import { type Caller, type Clock, OperationError } from '../bus/index.js'
import type { SqlStore } from '../store/index.js'
import { type ModelRegistry, engineMissingDetail } from './registry.js'
import { type RecordingOwner, type RecordingRow, transcriptionStore } from './transcription-store.js'
import { AudioRejected, toEngineAudio } from './wav-audio.js'
import { type Transcriber, TranscriptionFailure } from './transcriber.js'
import { whisperLanguages } from './languages.js'

/** The wire shape (contract/messages/models.ts, Recording). */
export interface RecordingOut {
  id: string
  model: string
  language: string
  duration_ms: number
  text: string
  created_at: string
}

export interface NewRecording {
  audio_base64: string
  model?: string
  language?: string
}

export interface Recordings {
  create(input: NewRecording, caller: Caller, signal?: AbortSignal): Promise<RecordingOut>
  get(id: string, caller: Caller): Promise<RecordingOut>
  list(caller: Caller, page: { limit?: number; offset?: number }): Promise<{ recordings: RecordingOut[] }>
  /** Stops running transcriptions (their requests fail) and releases the engine. */
  close(): Promise<void>
}

export interface RecordingsOptions {
  sql: SqlStore
  dataDir: string
  models: ModelRegistry
  transcriber: Transcriber
  clock: Clock
  /** Random bytes for recording ids. */
  random: (bytes: number) => Uint8Array
  log: Logger
}

const defaultPageSize = 50
const partSuffix = '.part'

export function createRecordings(opts: RecordingsOptions): Recordings {
  const store = transcriptionStore(opts.sql)
  const audioDir = path.join(opts.dataDir, 'recordings')
  fs.mkdirSync(audioDir, { recursive: true, mode: 0o700 })
  sweepPartFiles(audioDir, opts.log)
  const audioFile = (id: string) => path.join(audioDir, `${id}.wav`)

  return {
    async create(input, caller, signal) {
      const owner = ownerOf(caller)
      // Input first (422), then what the server lacks (501, 409): a bad request is bad on any server.
      const model = await opts.models.recordingModel(input.model)
      const language = chooseLanguage(input.language, model.englishOnly, model.name)
      const audio = decodeAudio(input.audio_base64)
      if (!opts.models.engineInstalled()) throw new OperationError('not_implemented', engineMissingDetail, { status: 501 })
      if (!model.downloaded) {
        throw new OperationError(
          'conflict',
          `Model '${model.name}' is not downloaded; download it first: POST /transcription/api/v1/models/${model.name}/download`,
          { status: 409 },
        )
      }

      const id = Buffer.from(opts.random(16)).toString('hex')
      const finalFile = audioFile(id)
      const partFile = finalFile + partSuffix
      fs.writeFileSync(partFile, audio.wav, { flag: 'wx', mode: 0o600 })
      try {
        const transcript = await opts.transcriber
          .transcribe({ model: model.name, modelFile: model.file, audioFile: partFile, language, signal })
          .catch((err: unknown) => {
            throw failureToError(err)
          })
        const row: RecordingRow = {
          id,
          owner_kind: owner.kind,
          owner_id: owner.id,
          model: model.name,
          language: transcript.language,
          duration_ms: audio.durationMs,
          text: transcript.text,
          created_at: opts.clock.now(),
        }
        // The file gets its final name inside the row's transaction: a failed rename leaves no row behind.
        await store.insertRecording(row, () => fs.renameSync(partFile, finalFile))
        opts.log.info({ id, model: model.name, duration_ms: audio.durationMs, owner: owner.kind }, 'recording stored')
        return toWire(row)
      } finally {
        fs.rmSync(partFile, { force: true })
      }
    },

    async get(id, caller) {
      const row = await store.recording(ownerOf(caller), id)
      if (!row) throw new OperationError('not_found', 'Recording not found', { status: 404 })
      return toWire(row)
    },

    async list(caller, page) {
      const rows = await store.recordings(ownerOf(caller), { limit: page.limit ?? defaultPageSize, offset: page.offset ?? 0 })
      return { recordings: rows.map(toWire) }
    },

    close: () => opts.transcriber.close(),
  }
}

/** The member caller kinds (schema/operation.ts `member`): a user, a wallet, or the operator. */
function ownerOf(caller: Caller): RecordingOwner {
  switch (caller.kind) {
    case 'user':
      return { kind: 'user', id: caller.userId }
    case 'wallet':
      return { kind: 'wallet', id: caller.walletId }
    case 'operator':
      return { kind: 'operator', id: '' }
    default:
      throw new OperationError('forbidden', 'Recordings need a user, wallet or operator credential', { status: 403 })
  }
}

function chooseLanguage(requested: string | undefined, englishOnly: boolean, model: string): string {
  const language = (requested ?? (englishOnly ? 'en' : 'auto')).toLowerCase()
  if (language !== 'auto' && !whisperLanguages.has(language)) {
    throw invalid(`Unknown language '${requested}'; expected a whisper language code such as 'en' or 'de', or 'auto'`)
  }
  if (englishOnly && language !== 'en' && language !== 'auto') {
    throw invalid(`Model '${model}' transcribes English only; omit language or send 'en'`)
  }
  return englishOnly ? 'en' : language
}

/** Strict base64 (Buffer.from would silently skip bad characters), then WAV → 16 kHz mono PCM. */
function decodeAudio(text: string): ReturnType<typeof toEngineAudio> {
  // A data URL prefix (what a browser's FileReader produces) and line breaks are tolerated.
  const compact = text.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '')
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    throw invalid('audio_base64 is not valid base64')
  }
  try {
    return toEngineAudio(Buffer.from(compact, 'base64'))
  } catch (err) {
    if (err instanceof AudioRejected) throw invalid(`audio_base64: ${err.reason}`)
    throw err
  }
}

function failureToError(err: unknown): unknown {
  if (!(err instanceof TranscriptionFailure)) return err
  if (err.kind === 'busy') {
    return new OperationError('limit_exceeded', `Transcription queue is full: ${err.reason}; try again later`, { status: 429 })
  }
  if (err.kind === 'aborted') return new OperationError('upstream_failed', 'Transcription failed: aborted', { status: 503 })
  return new OperationError('upstream_failed', `Transcription failed: ${err.reason}`, { status: 500 })
}

function toWire(row: RecordingRow): RecordingOut {
  return {
    id: row.id,
    model: row.model,
    language: row.language,
    duration_ms: row.duration_ms,
    text: row.text,
    created_at: new Date(row.created_at).toISOString(),
  }
}

function invalid(message: string): OperationError {
  return new OperationError('invalid_input', message, { status: 422 })
}

/** Audio of uploads a crashed process never finished. */
function sweepPartFiles(dir: string, log: Logger): void {
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(partSuffix)) continue
    fs.rmSync(path.join(dir, name), { force: true })
    log.info({ file: name }, 'removed an unfinished recording upload')
  }
}
