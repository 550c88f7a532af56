// The transcription model registry: which models exist, which are cached and usable, the global default, and downloads
// into the cache. Long-lived state (database, cache directory, transfers in flight) lives here; handlers.ts only maps
// operations onto it.
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from 'pino'
import { type Clock, OperationError } from '../bus/index.js'
import type { SqlStore } from '../store/index.js'
import { modelFileUrl, redactedUrl } from './base-url.js'
import { type CatalogueEntry, fallbackDefaultModel, modelFileName, whisperCatalogue } from './catalogue.js'
import type { LocalEngine } from './engine.js'
import { DownloadFailure, transferModelFile } from './model-download.js'
import { transcriptionStore } from './transcription-store.js'

/** One model as the registry lists it (the wire's TranscriptionModel). */
export interface TranscriptionModel {
  name: string
  display_name: string
  description: string
  params: string
  approx_memory: string
  relative_speed: string
  is_default: boolean
  downloaded: boolean
  available: boolean
}

/** The list of models and the default (the wire's ModelsOut). */
export interface ModelsOut {
  default_model: string
  local_engine_installed: boolean
  models: TranscriptionModel[]
}

/** The default model (the wire's DefaultModelOut). */
export interface DefaultModelOut {
  default_model: string
}

/** Progress of a model's download (ours, beyond the registry's interface). */
export interface DownloadProgress {
  state: 'not_downloaded' | 'downloading' | 'downloaded' | 'failed'
  received_bytes: number
  total_bytes: number
}

/** A supported model as a recording sees it: where its file is and whether it is cached. */
export interface RecordingModel {
  name: string
  file: string
  downloaded: boolean
  /** `.en` models transcribe English only. */
  englishOnly: boolean
}

export interface ModelRegistryOptions {
  sql: SqlStore
  dataDir: string
  /** `[models] base_url`; files are fetched from `<baseUrl>/ggml-<file>.bin`. */
  baseUrl: string
  engine: LocalEngine
  clock: Clock
  log: Logger
  fetch?: typeof globalThis.fetch
  /** The supported models; tests pass small fake entries. */
  catalogue?: readonly CatalogueEntry[]
  /** Default when none was set; must be in the catalogue. */
  defaultModel?: string
  /** A download fails when no byte arrives for this long. */
  stallTimeoutMs?: number
}

export interface ModelRegistry {
  list(): Promise<ModelsOut>
  getDefault(): Promise<DefaultModelOut>
  /** Validates against the catalogue; affects future recordings only. */
  setDefault(model: string): Promise<DefaultModelOut>
  /** Downloads into the cache (or returns at once when cached); concurrent calls for one model share a transfer. */
  download(name: string, signal?: AbortSignal): Promise<TranscriptionModel>
  progress(name: string): DownloadProgress
  /** Deletes a cached model file (the console's Models page); 409 while it downloads. */
  remove(name: string): Promise<TranscriptionModel>
  /**
   * The model a new recording uses: the named one, or the current default when none is named (read now, so a
   * later change of the default never touches it). 422 for an unsupported name.
   */
  recordingModel(name: string | undefined): Promise<RecordingModel>
  /** Whether the local engine is installed (decided at start). */
  engineInstalled(): boolean
  /** Aborts transfers in flight and waits until their temporary files are gone. */
  close(): Promise<void>
}

const modelNameMaxLength = 32 // a `model` is 1 to 32 characters
const defaultStallTimeoutMs = 60_000
/** Temporary files older than this are leftovers of a process that died mid-download. */
const staleTempAgeMs = 60 * 60 * 1000
const tempSuffix = '.part'

export const engineMissingDetail =
  'Local transcription engine is not installed on this server. Install the optional extra: npm install @fugood/whisper.node'

interface Transfer {
  done: Promise<void>
  controller: AbortController
  waiters: number
  receivedBytes: number
}

export function createModelRegistry(opts: ModelRegistryOptions): ModelRegistry {
  const catalogue = opts.catalogue ?? whisperCatalogue
  const byName = new Map(catalogue.map(entry => [entry.name, entry]))
  const fallbackDefault = opts.defaultModel ?? fallbackDefaultModel
  if (!byName.has(fallbackDefault)) throw new Error(`default model ${fallbackDefault} is not in the catalogue`)
  const settings = transcriptionStore(opts.sql)
  const cacheDir = path.join(opts.dataDir, 'models')
  const fetchImpl = opts.fetch ?? globalThis.fetch
  const stallTimeoutMs = opts.stallTimeoutMs ?? defaultStallTimeoutMs
  const transfers = new Map<string, Transfer>()
  const failedBytes = new Map<string, number>() // last failed attempt per model, for progress
  sweepStaleTempFiles(cacheDir, opts.clock.now() - staleTempAgeMs, opts.log)

  const finalFile = (entry: CatalogueEntry) => path.join(cacheDir, modelFileName(entry))

  function validName(value: unknown): CatalogueEntry {
    if (typeof value !== 'string' || value.length < 1 || value.length > modelNameMaxLength) {
      throw invalid(`Model name must be a string of 1 to ${modelNameMaxLength} characters`)
    }
    const entry = byName.get(value)
    if (!entry) throw invalid(`Unknown model '${value}'; expected one of: ${[...byName.keys()].join(', ')}`)
    return entry
  }

  async function currentDefault(): Promise<string> {
    const stored = await settings.defaultModel()
    if (stored === undefined) return fallbackDefault
    if (byName.has(stored)) return stored
    // A model dropped from the catalogue by an upgrade: report the fallback rather than an unusable name.
    opts.log.warn({ stored }, 'stored default model is no longer supported; using the fallback default')
    return fallbackDefault
  }

  // Synchronous on purpose: download() decides "cached, join, or start" within one tick, so a transfer that
  // finishes between an async stat and the lookup cannot make a second caller start the same download again.
  // Size only, never a hash: files reach the final name only through a verified rename (size and SHA-1).
  function isDownloaded(entry: CatalogueEntry): boolean {
    const stat = fs.statSync(finalFile(entry), { throwIfNoEntry: false })
    return stat !== undefined && stat.isFile() && stat.size === entry.bytes
  }

  function record(entry: CatalogueEntry, defaultName: string, downloaded: boolean, available: boolean) {
    const { name, display_name, description, params, approx_memory, relative_speed } = entry
    return {
      name,
      display_name,
      description,
      params,
      approx_memory,
      relative_speed,
      is_default: name === defaultName,
      downloaded,
      available,
    } satisfies TranscriptionModel
  }

  function startTransfer(entry: CatalogueEntry): Transfer {
    const controller = new AbortController()
    const url = modelFileUrl(opts.baseUrl, modelFileName(entry))
    const log = opts.log.child({ model: entry.name })
    let loggedTenths = 0
    const transfer: Transfer = { done: Promise.resolve(), controller, waiters: 0, receivedBytes: 0 }
    failedBytes.delete(entry.name)
    log.info({ url: redactedUrl(url), bytes: entry.bytes }, 'model download started')
    transfer.done = transferModelFile(
      {
        url,
        tempFile: path.join(cacheDir, `${modelFileName(entry)}.${process.pid}${tempSuffix}`),
        finalFile: finalFile(entry),
        bytes: entry.bytes,
        sha1: entry.sha1,
      },
      {
        fetch: fetchImpl,
        stallTimeoutMs,
        signal: controller.signal,
        onProgress(received) {
          transfer.receivedBytes = received
          const tenths = Math.floor((received * 10) / entry.bytes)
          if (tenths > loggedTenths) {
            loggedTenths = tenths
            log.info({ received, total: entry.bytes }, `model download ${tenths * 10}%`)
          }
        },
      },
    )
      .then(() => log.info('model download finished'))
      .catch((err: unknown) => {
        failedBytes.set(entry.name, transfer.receivedBytes)
        if (err instanceof DownloadFailure) {
          log.warn({ reason: err.reason }, 'model download failed')
          throw err
        }
        log.error({ err }, 'model download failed unexpectedly')
        throw new DownloadFailure('internal error')
      })
      .finally(() => {
        if (transfers.get(entry.name) === transfer) transfers.delete(entry.name) // a failed download can be retried
      })
    transfers.set(entry.name, transfer)
    return transfer
  }

  /** Waits for a shared transfer; a caller that goes away leaves it, and the last one to leave stops it. */
  function awaitTransfer(transfer: Transfer, signal: AbortSignal | undefined): Promise<void> {
    transfer.waiters += 1
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        transfer.waiters -= 1
        if (transfer.waiters === 0) transfer.controller.abort()
        reject(new DownloadFailure('aborted'))
      }
      if (signal?.aborted) return leave()
      signal?.addEventListener('abort', leave, { once: true })
      transfer.done.then(
        () => {
          signal?.removeEventListener('abort', leave)
          resolve()
        },
        (err: unknown) => {
          signal?.removeEventListener('abort', leave)
          reject(err)
        },
      )
    })
  }

  return {
    async list() {
      const defaultName = await currentDefault()
      const installed = opts.engine.isInstalled()
      const models = catalogue.map(entry => {
        const downloaded = isDownloaded(entry)
        return record(entry, defaultName, downloaded, installed && downloaded) // usable: installed engine, cached model
      })
      return { default_model: defaultName, local_engine_installed: installed, models }
    },

    async getDefault() {
      return { default_model: await currentDefault() }
    },

    async setDefault(model) {
      const entry = validName(model)
      await settings.saveDefaultModel(entry.name, opts.clock.now())
      return { default_model: await currentDefault() }
    },

    async download(name, signal) {
      const entry = validName(name) // 422 before 501: the name is checked first
      if (!opts.engine.isInstalled()) throw new OperationError('not_implemented', engineMissingDetail, { status: 501 })
      if (!isDownloaded(entry)) {
        const transfer = transfers.get(entry.name) ?? startTransfer(entry)
        try {
          await awaitTransfer(transfer, signal)
        } catch (err) {
          const reason = err instanceof DownloadFailure ? err.reason : 'internal error'
          throw new OperationError('upstream_failed', `Model download failed: ${reason}`, { status: 500 })
        }
      }
      const downloaded = isDownloaded(entry)
      // The contract: in the download answer available = downloaded, and is_default is read after the download.
      return record(entry, await currentDefault(), downloaded, downloaded)
    },

    progress(name) {
      const entry = validName(name)
      const transfer = transfers.get(entry.name)
      if (transfer) return { state: 'downloading', received_bytes: transfer.receivedBytes, total_bytes: entry.bytes }
      if (isDownloaded(entry)) return { state: 'downloaded', received_bytes: entry.bytes, total_bytes: entry.bytes }
      const failed = failedBytes.get(entry.name)
      if (failed !== undefined) return { state: 'failed', received_bytes: failed, total_bytes: entry.bytes }
      return { state: 'not_downloaded', received_bytes: 0, total_bytes: entry.bytes }
    },

    async remove(name) {
      const entry = validName(name)
      if (transfers.has(entry.name)) throw new OperationError('conflict', `Model ${entry.name} is downloading; delete it once the download ends`, { status: 409 })
      fs.rmSync(finalFile(entry), { force: true })
      opts.log.info({ model: entry.name }, 'model file deleted')
      return record(entry, await currentDefault(), false, false)
    },

    async recordingModel(name) {
      const entry = validName(name ?? (await currentDefault()))
      return {
        name: entry.name,
        file: finalFile(entry),
        downloaded: isDownloaded(entry),
        englishOnly: entry.name.endsWith('.en'),
      }
    },

    engineInstalled: () => opts.engine.isInstalled(),

    async close() {
      const running = [...transfers.values()]
      for (const transfer of running) transfer.controller.abort()
      await Promise.allSettled(running.map(transfer => transfer.done))
    },
  }
}

function invalid(message: string): OperationError {
  return new OperationError('invalid_input', message, { status: 422 })
}

/** Removes temporary files a crashed process left behind; live transfers of other processes are younger. */
function sweepStaleTempFiles(cacheDir: string, olderThan: number, log: Logger): void {
  let names: string[]
  try {
    names = fs.readdirSync(cacheDir)
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ENOENT') log.warn({ err }, 'cannot read the model cache directory')
    return
  }
  for (const name of names) {
    if (!name.endsWith(tempSuffix)) continue
    const file = path.join(cacheDir, name)
    try {
      if (fs.statSync(file).mtimeMs < olderThan) {
        fs.rmSync(file, { force: true })
        log.info({ file: name }, 'removed a stale partial model download')
      }
    } catch (err) {
      log.warn({ err, file: name }, 'could not remove a stale partial model download')
    }
  }
}
