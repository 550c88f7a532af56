// The synthetic ggml model, downloaded through the registry and, where the optional engine is installed,
// loaded by it to transcribe a generated clip end to end (test/models/synthetic-ggml.ts says how the model is built).
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { detectLocalEngine, localEnginePackage } from '../../src/models/index.js'
import { silentLog, startFixture, type Fixture } from './fixture.js'
import { syntheticGgmlModel, testClipWav } from './synthetic-ggml.js'

const transcriptionTimeoutMs = 60_000 // the engine's stop() did not end a hang on an empty model

const synthetic = suite('the synthetic test model')
let f: Fixture | undefined
synthetic.after.each(async () => {
  await f?.close()
  f = undefined
})

synthetic('matches the reference recipe byte for byte', () => {
  const model = syntheticGgmlModel()
  assert.is(model.length, 1_853_961)
  assert.is(
    createHash('sha256').update(model).digest('hex'),
    '5bb91c449113f8732b1f1c84a7389b65af2b38e8c3d12864427db3a618cf6772',
  )
})

synthetic('downloads through the registry from the loopback host and verifies', async () => {
  f = await startFixture({
      installed: true,
      bodies: { tiny: syntheticGgmlModel() },
      registry: { defaultModel: 'tiny' },
    })
  const model = await f.registry.download('tiny')
  assert.equal([model.downloaded, model.available], [true, true])
  const cached = fs.readFileSync(path.join(f.cacheDir, 'ggml-tiny.bin'))
  assert.is(cached.readUInt32LE(0), 0x67676d6c) // ggml magic
  assert.is(cached.length, 1_853_961)
})

interface WhisperContext {
  transcribeFile(file: string, opts: { language: string; maxThreads: number }): {
    stop(): unknown
    promise: Promise<{ result?: string; segments?: { text: string }[] }>
  }
  release(): Promise<void> | void
}
interface WhisperModule {
  initWhisper(opts: { filePath: string; useGpu: boolean }, variant: string): Promise<WhisperContext>
}

const engine = await detectLocalEngine({ log: silentLog })
if (engine.isInstalled()) {
  synthetic('the installed engine loads the downloaded model and transcribes a generated clip', async () => {
    f = await startFixture({
      installed: true,
      bodies: { tiny: syntheticGgmlModel() },
      registry: { defaultModel: 'tiny' },
    })
    await f.registry.download('tiny')
    const wav = path.join(f.dataDir, 'clip.wav')
    fs.writeFileSync(wav, testClipWav(3))
    const whisper = (await import(localEnginePackage)) as WhisperModule
    const ctx = await whisper.initWhisper({ filePath: path.join(f.cacheDir, 'ggml-tiny.bin'), useGpu: false }, 'default')
    try {
      const job = ctx.transcribeFile(wav, { language: 'en', maxThreads: 1 })
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('transcription timed out')), transcriptionTimeoutMs)
      })
      const result = await Promise.race([job.promise, timeout]).finally(() => clearTimeout(timer))
      const text = result.result ?? (result.segments ?? []).map(s => s.text).join('')
      assert.match(text, /hello/)
    } finally {
      await ctx.release()
    }
  })
} else {
  console.log(
    `SKIP end-to-end transcription: ${localEnginePackage} is not installed in node_modules (it is an optional ` +
      'dependency: `npm install --omit=optional` leaves it out); the download path above still runs.',
  )
}
synthetic.run()
