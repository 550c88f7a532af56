// The local engine behind a small adapter: one engine context per model, loaded on first use and kept until the
// daemon stops; one transcription at a time per model (a context is not safe to share between concurrent jobs, and
// a second job would only compete for the same cores), the rest waiting in a bounded queue.
//
// @fugood/whisper.node runs whisper.cpp on a native worker thread: transcribeFile() returns at once and its promise
// settles later, so the event loop keeps serving other requests meanwhile (test/models/transcriber.test.ts counts
// event-loop turns during a transcription). The engine's stop() does not end every hang (it never ended one on an empty
// model), so every job also has a timeout after which its context is abandoned and the next job loads a fresh one.
import os from 'node:os'
import type { Logger } from 'pino'
import { localEnginePackage } from './engine.js'

/** The part of @fugood/whisper.node this adapter uses (typed here: the package is an optional dependency). */
export interface WhisperEngineModule {
  initWhisper(options: { filePath: string; useGpu: boolean }, variant: 'default'): Promise<WhisperContext>
}

export interface WhisperContext {
  transcribeFile(
    file: string,
    options: { language: string; maxThreads: number },
  ): { stop(): Promise<void> | void; promise: Promise<{ result: string; language?: string; isAborted?: boolean }> }
  release(): Promise<void> | void
}

/** Dynamic import of the optional engine package. */
export function importLocalEngine(): Promise<WhisperEngineModule> {
  const specifier: string = localEnginePackage // a variable keeps TypeScript from requiring the package at build
  return import(specifier) as Promise<WhisperEngineModule>
}

export interface TranscriptionJob {
  /** The catalogue name (one context and one queue per model). */
  model: string
  modelFile: string
  /** A 16 kHz mono PCM WAV file. */
  audioFile: string
  /** A whisper language code, or `auto` to detect. */
  language: string
  /** The caller went away: a waiting job is dropped, a running one stopped. */
  signal?: AbortSignal
}

export interface Transcript {
  text: string
  /** The language the engine used (the detected one when `auto` was asked). */
  language: string
}

/** Why a transcription did not produce text; `kind` decides the status code the caller sees. */
export class TranscriptionFailure extends Error {
  constructor(
    readonly kind: 'busy' | 'aborted' | 'failed',
    readonly reason: string,
  ) {
    super(reason)
    this.name = 'TranscriptionFailure'
  }
}

export interface Transcriber {
  transcribe(job: TranscriptionJob): Promise<Transcript>
  /** Jobs of a model running or waiting (for tests and logs). */
  pending(model: string): number
  /** Stops running jobs, drops waiting ones and releases every loaded context. */
  close(): Promise<void>
}

export interface TranscriberOptions {
  loadEngine: () => Promise<WhisperEngineModule>
  log: Logger
  /** Engine threads per transcription; by default all cores but one (at most 4), so the daemon keeps a core. */
  threads?: number
  /** A job running longer than this fails and its context is abandoned. */
  timeoutMs: number
  /** Jobs per model that may wait behind the running one; more are refused as busy (default 8). */
  maxWaiting?: number
}

interface ModelSlot {
  context?: Promise<WhisperContext>
  /** Settles when the last queued job has finished (never rejects). */
  tail: Promise<void>
  pending: number
}

/** How long a stopped job may take to wind down before its context is given up. */
const stopGraceMs = 5_000

export function createTranscriber(opts: TranscriberOptions): Transcriber {
  const threads = opts.threads ?? Math.max(1, Math.min(4, os.availableParallelism() - 1))
  const maxWaiting = opts.maxWaiting ?? 8
  const slots = new Map<string, ModelSlot>()
  const stopAll = new AbortController()
  let engine: Promise<WhisperEngineModule> | undefined

  function loadContext(slot: ModelSlot, job: TranscriptionJob): Promise<WhisperContext> {
    if (!slot.context) {
      const started = performance.now()
      slot.context = (engine ??= opts.loadEngine())
        .then(module => module.initWhisper({ filePath: job.modelFile, useGpu: false }, 'default'))
        .then(
          context => {
            opts.log.info({ model: job.model, ms: Math.round(performance.now() - started) }, 'transcription model loaded')
            return context
          },
          (err: unknown) => {
            slot.context = undefined // the next job tries again
            engine = undefined
            opts.log.error({ err, model: job.model }, 'the transcription engine could not load the model')
            throw new TranscriptionFailure('failed', 'the engine could not load the model')
          },
        )
    }
    return slot.context
  }

  async function run(slot: ModelSlot, job: TranscriptionJob): Promise<Transcript> {
    if (job.signal?.aborted || stopAll.signal.aborted) throw new TranscriptionFailure('aborted', 'aborted')
    const context = await loadContext(slot, job)
    const started = performance.now()
    let handle: ReturnType<WhisperContext['transcribeFile']>
    try {
      handle = context.transcribeFile(job.audioFile, { language: job.language, maxThreads: threads })
    } catch (err) {
      opts.log.error({ err, model: job.model }, 'the transcription engine refused the job')
      throw new TranscriptionFailure('failed', 'the engine failed on this audio')
    }
    const stop = () => void Promise.resolve(handle.stop()).catch(() => undefined)
    // The job ends by itself, or at a deadline: the timeout, or a short grace after a stop request (stop() does
    // not end every hang). Past the deadline the job may still be running natively, so its context is abandoned.
    let timer: NodeJS.Timeout | undefined
    let missDeadline: (failure: TranscriptionFailure) => void = () => undefined
    const deadline = new Promise<never>((_, reject) => (missDeadline = reject))
    const arm = (ms: number, failure: TranscriptionFailure) => {
      clearTimeout(timer)
      timer = setTimeout(() => missDeadline(failure), ms)
    }
    arm(opts.timeoutMs, new TranscriptionFailure('failed', 'timed out'))
    const onAbort = () => {
      stop()
      arm(stopGraceMs, new TranscriptionFailure('aborted', 'aborted'))
    }
    const signals = [stopAll.signal, ...(job.signal ? [job.signal] : [])]
    for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true })
    try {
      const result = await Promise.race([handle.promise, deadline])
      if (result.isAborted) throw new TranscriptionFailure('aborted', 'aborted')
      opts.log.info({ model: job.model, ms: Math.round(performance.now() - started) }, 'transcription finished')
      return { text: result.result.trim(), language: result.language ?? job.language }
    } catch (err) {
      if (err instanceof TranscriptionFailure) {
        if (err.reason === 'timed out') stop()
        if (!(await hasSettled(handle.promise))) {
          abandon(slot, context, handle.promise)
          opts.log.error({ model: job.model, reason: err.reason }, 'transcription did not end; its context is abandoned')
        }
        throw err
      }
      opts.log.error({ err, model: job.model }, 'transcription failed')
      throw new TranscriptionFailure('failed', 'the engine failed on this audio')
    } finally {
      clearTimeout(timer)
      for (const signal of signals) signal.removeEventListener('abort', onAbort)
    }
  }

  /** A hung job keeps its context busy: later jobs get a new one; the old one is released if the job ever ends. */
  function abandon(slot: ModelSlot, context: WhisperContext, running: Promise<unknown>): void {
    slot.context = undefined
    void running.then(
      () => context.release(),
      () => context.release(),
    )
  }

  return {
    transcribe(job) {
      if (stopAll.signal.aborted) return Promise.reject(new TranscriptionFailure('aborted', 'the daemon is stopping'))
      let slot = slots.get(job.model)
      if (!slot) {
        slot = { tail: Promise.resolve(), pending: 0 }
        slots.set(job.model, slot)
      }
      if (slot.pending > maxWaiting) {
        return Promise.reject(new TranscriptionFailure('busy', `too many transcriptions waiting for model ${job.model}`))
      }
      const current = slot
      current.pending += 1
      const result = current.tail.then(() => run(current, job))
      current.tail = result.then(
        () => undefined,
        () => undefined,
      )
      return result.finally(() => {
        current.pending -= 1
      })
    },

    pending: model => slots.get(model)?.pending ?? 0,

    async close() {
      stopAll.abort()
      await Promise.all([...slots.values()].map(slot => slot.tail))
      const contexts = [...slots.values()].flatMap(slot => (slot.context ? [slot.context] : []))
      slots.clear()
      for (const settled of await Promise.allSettled(contexts)) {
        if (settled.status === 'fulfilled') await settled.value.release()
      }
    },
  }
}

/** Whether a promise has already settled (checked after callbacks queued so far have run). */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  const mark = () => {
    settled = true
  }
  promise.then(mark, mark)
  await new Promise(resolve => setImmediate(resolve))
  return settled
}
