// The engine adapter: one context per model loaded on first use, one job at a time per model with a bounded
// queue, timeouts and stops that give a context up, release on close — with a scripted engine; then the real
// engine, checking that a transcription leaves the event loop free.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import {
  createTranscriber,
  detectLocalEngine,
  importLocalEngine,
  type Transcriber,
  type WhisperEngineModule,
} from '../../src/models/index.js'
import { eventually, rejection, silentLog } from './fixture.js'
import { syntheticGgmlModel, testClipWav } from './synthetic-ggml.js'

// Decided before any suite runs: a top-level await between two suites' run() calls interleaves their output.
const installed = (await detectLocalEngine({ log: silentLog })).isInstalled()

interface ScriptedJob {
  model: string
  file: string
  finish(text: string): void
  fail(err: Error): void
  stopped: boolean
}

/** An engine whose jobs end when the test says so. */
function scriptedEngine(opts: { honourStop?: boolean; failLoad?: boolean } = {}) {
  const jobs: ScriptedJob[] = []
  const loads: string[] = []
  const released: string[] = []
  const module: WhisperEngineModule = {
    async initWhisper({ filePath }) {
      loads.push(filePath)
      if (opts.failLoad) throw new Error('Failed to initialize whisper context')
      return {
        transcribeFile(file) {
          let settle!: (result: { result: string; language: string; isAborted: boolean }) => void
          let fail!: ScriptedJob['fail']
          const promise = new Promise<{ result: string; language: string; isAborted: boolean }>((resolve, reject) => {
            settle = resolve
            fail = reject
          })
          const finish = (text: string) => settle({ result: text, language: 'en', isAborted: false })
          const job: ScriptedJob = { model: filePath, file, finish, fail, stopped: false }
          jobs.push(job)
          return {
            promise,
            stop() {
              job.stopped = true
              if (opts.honourStop) settle({ result: '', language: 'en', isAborted: true }) // as whisper.node answers
            },
          }
        },
        release() {
          released.push(filePath)
        },
      }
    },
  }
  return { module, jobs, loads, released }
}

let jobNumber = 0
const job = (model: string, extra: { signal?: AbortSignal } = {}) => ({
  model,
  modelFile: `/models/ggml-${model}.bin`,
  audioFile: `/audio/${model}-${++jobNumber}.wav`,
  language: 'en',
  ...extra,
})

const adapter = suite('transcriber with a scripted engine')
let t: Transcriber | undefined
adapter.after.each(async () => {
  await t?.close()
  t = undefined
})

adapter('one job at a time per model, in order; models run side by side; one load per model', async () => {
  const engine = scriptedEngine()
  t = createTranscriber({ loadEngine: async () => engine.module, log: silentLog, timeoutMs: 10_000 })
  const first = t.transcribe(job('tiny'))
  const second = t.transcribe(job('tiny'))
  const other = t.transcribe(job('base'))
  await eventually(() => engine.jobs.length === 2, 'two models running')
  assert.equal(engine.jobs.map(j => j.model), ['/models/ggml-tiny.bin', '/models/ggml-base.bin'])
  assert.is(t.pending('tiny'), 2)
  engine.jobs[0]!.finish(' hello ')
  assert.equal(await first, { text: 'hello', language: 'en' })
  await eventually(() => engine.jobs.length === 3, 'the queued job starts after the first')
  engine.jobs[2]!.finish('second')
  engine.jobs[1]!.finish('other')
  assert.is((await second).text, 'second')
  assert.is((await other).text, 'other')
  assert.equal(engine.loads, ['/models/ggml-tiny.bin', '/models/ggml-base.bin']) // contexts are kept
  assert.is(t.pending('tiny'), 0)
  await t.close()
  t = undefined
  assert.equal(engine.released.sort(), ['/models/ggml-base.bin', '/models/ggml-tiny.bin'])
})

adapter('a full queue refuses more jobs as busy', async () => {
  const engine = scriptedEngine()
  t = createTranscriber({ loadEngine: async () => engine.module, log: silentLog, timeoutMs: 10_000, maxWaiting: 1 })
  const running = t.transcribe(job('tiny'))
  const waiting = t.transcribe(job('tiny'))
  const refused = (await rejection(t.transcribe(job('tiny')))) as { kind: string; reason: string }
  assert.equal([refused.kind, refused.reason], ['busy', 'too many transcriptions waiting for model tiny'])
  await eventually(() => engine.jobs.length === 1, 'the first job running')
  engine.jobs[0]!.finish('a')
  await eventually(() => engine.jobs.length === 2, 'the second job running')
  engine.jobs[1]!.finish('b')
  assert.equal([(await running).text, (await waiting).text], ['a', 'b'])
})

adapter('a caller that leaves drops its waiting job and stops its running one', async () => {
  const engine = scriptedEngine({ honourStop: true })
  t = createTranscriber({ loadEngine: async () => engine.module, log: silentLog, timeoutMs: 10_000 })
  const runningCaller = new AbortController()
  const waitingCaller = new AbortController()
  const running = t.transcribe(job('tiny', { signal: runningCaller.signal }))
  const waiting = t.transcribe(job('tiny', { signal: waitingCaller.signal }))
  await eventually(() => engine.jobs.length === 1, 'the first job running')
  waitingCaller.abort()
  runningCaller.abort()
  assert.is(((await rejection(running)) as { kind: string }).kind, 'aborted')
  assert.is(((await rejection(waiting)) as { kind: string }).kind, 'aborted')
  assert.ok(engine.jobs[0]!.stopped)
  assert.is(engine.jobs.length, 1) // the waiting job never reached the engine
  assert.equal(engine.released, []) // a stopped job ended cleanly: its context stays
})

adapter('a job past its timeout fails, and the next job gets a fresh context', async () => {
  const engine = scriptedEngine() // stop() is ignored: the job hangs
  t = createTranscriber({ loadEngine: async () => engine.module, log: silentLog, timeoutMs: 100 })
  const hung = t.transcribe(job('tiny'))
  const next = t.transcribe(job('tiny'))
  const failure = (await rejection(hung)) as { kind: string; reason: string }
  assert.equal([failure.kind, failure.reason], ['failed', 'timed out'])
  assert.ok(engine.jobs[0]!.stopped)
  await eventually(() => engine.jobs.length === 2, 'the next job running')
  assert.is(engine.loads.length, 2)
  engine.jobs[1]!.finish('fresh')
  assert.is((await next).text, 'fresh')
  assert.equal(engine.released, []) // the hung context is released only if its job ever ends
  engine.jobs[0]!.finish('late')
  await eventually(() => engine.released.length === 1, 'the abandoned context released')
})

adapter('an engine error and a model that does not load are failures; the load is retried', async () => {
  const broken = scriptedEngine({ failLoad: true })
  t = createTranscriber({ loadEngine: async () => broken.module, log: silentLog, timeoutMs: 10_000 })
  const load = (await rejection(t.transcribe(job('tiny')))) as { kind: string; reason: string }
  assert.equal([load.kind, load.reason], ['failed', 'the engine could not load the model'])
  await rejection(t.transcribe(job('tiny')))
  assert.is(broken.loads.length, 2)
  await t.close()

  const engine = scriptedEngine()
  t = createTranscriber({ loadEngine: async () => engine.module, log: silentLog, timeoutMs: 10_000 })
  const failing = t.transcribe(job('tiny'))
  await eventually(() => engine.jobs.length === 1, 'the job running')
  engine.jobs[0]!.fail(new Error('whisper_full failed'))
  const failure = (await rejection(failing)) as { kind: string; reason: string }
  assert.equal([failure.kind, failure.reason], ['failed', 'the engine failed on this audio'])
})

adapter('close stops running jobs and refuses new ones', async () => {
  const engine = scriptedEngine({ honourStop: true })
  t = createTranscriber({ loadEngine: async () => engine.module, log: silentLog, timeoutMs: 10_000 })
  const running = t.transcribe(job('tiny'))
  await eventually(() => engine.jobs.length === 1, 'the job running')
  await t.close()
  assert.is(((await rejection(running)) as { kind: string }).kind, 'aborted')
  assert.is(((await rejection(t.transcribe(job('tiny')))) as { kind: string }).kind, 'aborted')
  assert.equal(engine.released, ['/models/ggml-tiny.bin'])
  t = undefined
})

adapter.run()

const real = suite('transcriber with the installed engine')
if (installed) {
  real('transcribes off the main thread: the event loop keeps turning during a transcription', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-transcriber-'))
    const transcriber = createTranscriber({ loadEngine: importLocalEngine, log: silentLog, timeoutMs: 120_000 })
    try {
      const modelFile = path.join(dir, 'ggml-tiny.bin')
      fs.writeFileSync(modelFile, syntheticGgmlModel())
      const audioFile = path.join(dir, 'clip.wav')
      fs.writeFileSync(audioFile, testClipWav(3))
      const transcribe = () => transcriber.transcribe({ model: 'tiny', modelFile, audioFile, language: 'en' })
      await transcribe() // loads the context first, so only the transcription itself is measured below
      let turns = 0
      let counting = true
      const count = () => {
        turns += 1
        if (counting) setImmediate(count)
      }
      setImmediate(count)
      const started = performance.now()
      const result = await transcribe()
      counting = false
      const ms = performance.now() - started
      assert.match(result.text, /hello/)
      // A job on the main thread would leave one or two turns; a free loop turns thousands of times per second.
      assert.ok(turns > ms, `event loop turns during a ${Math.round(ms)} ms transcription: ${turns}`)
    } finally {
      await transcriber.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
} else {
  console.log('SKIP event-loop check: @fugood/whisper.node is not installed (an optional dependency)')
}
real.run()
