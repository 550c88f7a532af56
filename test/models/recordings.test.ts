// Recordings over HTTP: a WAV upload is transcribed by the real engine with the synthetic model, stored
// with its model, and keeps that model when the default changes; bad input is 422, a missing engine 501, a model
// not downloaded 409. Then `relaypay models list` and `relaypay models default` against the same daemon.
//
// The daemon runs with `[models] test_catalogue_file`: the built-in catalogue with `tiny` pinned to the synthetic
// model's size and SHA-1, which the loopback host serves as ggml-tiny.bin.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { detectLocalEngine, engineMissingDetail, whisperCatalogue } from '../../src/models/index.js'
import { cliPath, startDaemon, type TestDaemon } from '../support/daemon.js'
import { startModelHost, type ModelHost } from '../support/model-host.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { fakeEntry, silentLog } from './fixture.js'
import { syntheticGgmlModel, testClipWav } from './synthetic-ggml.js'
import { wavFile } from './wav-files.js'

const base = '/transcription/api/v1'
const installed = (await detectLocalEngine({ log: silentLog })).isInstalled()
const synthetic = syntheticGgmlModel()
const clip = (seconds: number) => testClipWav(seconds).toString('base64')

interface Setup {
  daemon: TestDaemon
  host: ModelHost
  dir: string
  operator: Record<string, string>
  user: TestAppUser
  userAuth: Record<string, string>
}

async function setup(engine: 'auto' | 'assume_installed' | 'missing'): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-recordings-'))
  const host = await startModelHost()
  host.serve('ggml-tiny.bin', synthetic)
  const catalogueFile = path.join(dir, 'catalogue.json')
  const catalogue = whisperCatalogue.map(entry => (entry.name === 'tiny' ? fakeEntry('tiny', synthetic) : entry))
  fs.writeFileSync(catalogueFile, JSON.stringify(catalogue))
  const jwtSecret = randomBytes(32).toString('hex')
  const daemon = await startDaemon({
    config:
      jwtSecretConfig(jwtSecret) +
      `[models]\nengine = "${engine}"\nbase_url = "${host.baseUrl}"\ntest_catalogue_file = "${catalogueFile}"\n` +
      'transcription_timeout_seconds = 300\n',
  })
  const user = await createAppWithUser(daemon, { jwtSecret })
  return {
    daemon,
    host,
    dir,
    operator: { authorization: `Bearer ${daemon.adminToken}` },
    user,
    userAuth: { authorization: `Bearer ${user.userToken}` },
  }
}

async function teardown(s: Setup | undefined): Promise<void> {
  if (!s) return
  await s.daemon.stop()
  await s.host.close()
  fs.rmSync(s.dir, { recursive: true, force: true })
}

/** Runs the CLI against the suite's daemon. */
async function cli(daemon: TestDaemon, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, ...args, '--data-dir', daemon.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', chunk => (stdout += chunk))
  child.stderr.on('data', chunk => (stderr += chunk))
  const code = await new Promise<number | null>(resolve => child.on('exit', resolve))
  return { code, stdout, stderr }
}

// ---------------------------------------------------------------------------------------------------------------
const input = suite('recordings: what is refused before any transcription; the models CLI')
let s: Setup | undefined
input.before(async () => {
  s = await setup('assume_installed')
})
input.after(async () => teardown(s))

input('needs an authenticated caller', async () => {
  const { daemon } = s!
  assert.is((await daemon.request('POST', `${base}/recordings`, { body: { audio_base64: clip(2) } })).status, 401)
  assert.is((await daemon.request('GET', `${base}/recordings`)).status, 401)
  assert.is((await daemon.request('GET', `${base}/recordings/abc`)).status, 401)
})

input('bad base64, non-WAV audio, unknown model or language → 422 with the reason', async () => {
  const { daemon, operator } = s!
  const post = (body: unknown) => daemon.request('POST', `${base}/recordings`, { body, headers: operator })
  const cases: [unknown, RegExp][] = [
    [{}, /audio_base64/],
    [{ audio_base64: 'not base64 at all!' }, /^audio_base64 is not valid base64$/],
    [{ audio_base64: 'QUJD=' }, /^audio_base64 is not valid base64$/],
    [{ audio_base64: 'UklG*kZX' + clip(2).slice(8) }, /^audio_base64 is not valid base64$/], // Buffer.from would skip the *
    [{ audio_base64: Buffer.from('just some text, no audio').toString('base64') }, /^audio_base64: audio must be a WAV file \(RIFF\/WAVE\); convert it first/],
    [{ audio_base64: Buffer.from('ID3\u0004\u0000\u0000 an mp3', 'latin1').toString('base64') }, /must be a WAV file \(RIFF\/WAVE\), got MP3/],
    [{ audio_base64: testClipWav(2).subarray(0, 44).toString('base64') }, /no audio samples/],
    [{ audio_base64: clip(2), model: 'nope' }, /^Unknown model 'nope'; expected one of: tiny, tiny.en, base/],
    [{ audio_base64: clip(2), model: 'x'.repeat(33) }, /model/],
    [{ audio_base64: clip(2), model: 'tiny', language: 'xx' }, /^Unknown language 'xx'/],
    [{ audio_base64: clip(2), model: 'tiny.en', language: 'de' }, /^Model 'tiny.en' transcribes English only/],
  ]
  for (const [body, detail] of cases) {
    const res = await post(body)
    assert.is(res.status, 422, JSON.stringify(body).slice(0, 80))
    assert.match(res.json.detail, detail)
  }
})

input('a model that is not downloaded → 409 naming the download route; the default is used when none is named', async () => {
  const { daemon, operator } = s!
  const res = await daemon.request('POST', `${base}/recordings`, { body: { audio_base64: clip(2) }, headers: operator })
  assert.is(res.status, 409)
  assert.is(res.json.detail, "Model 'base' is not downloaded; download it first: POST /transcription/api/v1/models/base/download")
  const recordings = path.join(daemon.dataDir, 'recordings')
  assert.equal(fs.readdirSync(recordings), []) // nothing stored, no audio left behind
})

input('a body over [http] max_body_bytes (1 MiB: about 24 s of 16 kHz mono audio) → 413', async () => {
  const { daemon, operator } = s!
  const res = await daemon.request('POST', `${base}/recordings`, { body: { audio_base64: clip(25) }, headers: operator })
  assert.is(res.status, 413)
  const fits = await daemon.request('POST', `${base}/recordings`, { body: { audio_base64: clip(24) }, headers: operator })
  assert.is(fits.status, 409) // got past the body limit: only the model is missing
})

input('unknown ids are 404; a caller without recordings lists none', async () => {
  const { daemon, operator } = s!
  const res = await daemon.request('GET', `${base}/recordings/0123456789abcdef`, { headers: operator })
  assert.equal([res.status, res.json], [404, { detail: 'Recording not found' }])
  const list = await daemon.request('GET', `${base}/recordings`, { headers: operator })
  assert.equal([list.status, list.json], [200, { recordings: [] }])
  assert.is((await daemon.request('GET', `${base}/recordings?limit=0`, { headers: operator })).status, 422)
})

input('relaypay models list prints the table; relaypay models default reads and sets the default', async () => {
  const { daemon, operator } = s!
  const downloaded = await daemon.request('POST', `${base}/models/tiny/download`, { headers: operator })
  assert.is(downloaded.status, 200)
  const list = await cli(daemon, ['models', 'list'])
  assert.is(list.code, 0, list.stderr)
  const lines = list.stdout.split('\n')
  assert.match(lines[0]!, /^NAME\s+PARAMS\s+MEMORY\s+SPEED\s+DOWNLOADED\s+AVAILABLE\s+DEFAULT$/)
  assert.match(list.stdout, /^tiny\s+39M\s+~270 MB\s+~10x\s+yes\s+yes$/m)
  assert.match(list.stdout, /^base\s+74M\s+~390 MB\s+~7x\s+no\s+no\s+yes$/m)
  assert.match(list.stdout, /\n\nlocal engine: installed\n$/)

  const read = await cli(daemon, ['models', 'default'])
  assert.equal([read.code, read.stdout], [0, 'base\n'])
  const set = await cli(daemon, ['models', 'default', 'tiny'])
  assert.equal([set.code, set.stdout], [0, 'tiny\n'])
  const now = await daemon.request('GET', `${base}/models/default`, { headers: operator })
  assert.equal(now.json, { default_model: 'tiny' })
  const refused = await cli(daemon, ['models', 'default', 'nope'])
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /Unknown model 'nope'.*\(HTTP 422\)/)
  const relisted = await cli(daemon, ['models', 'list'])
  assert.match(relisted.stdout, /^tiny\s+39M\s+~270 MB\s+~10x\s+yes\s+yes\s+yes$/m)
})

input.run()

// ---------------------------------------------------------------------------------------------------------------
const missing = suite('POST /recordings without the local engine')
let m: Setup | undefined
missing.after(async () => teardown(m))
missing('answers 501 with the registry detail naming the optional install', async () => {
  m = await setup('missing')
  const res = await m.daemon.request('POST', `${base}/recordings`, {
    body: { audio_base64: clip(2), model: 'tiny' },
    headers: m.operator,
  })
  assert.equal([res.status, res.json], [501, { detail: engineMissingDetail }])
  assert.is(engineMissingDetail, 'Local transcription engine is not installed on this server. Install the optional extra: npm install @fugood/whisper.node')
})
missing.run()

// ---------------------------------------------------------------------------------------------------------------
const engine = suite('recordings transcribed by the installed engine')
let e: Setup | undefined
engine.before(async () => {
  if (installed) e = await setup('auto')
})
engine.after(async () => teardown(e))

if (installed) {
  engine('an upload is transcribed with the default model and keeps that model after the default changes', async () => {
    const { daemon, operator } = e!
    const downloaded = await daemon.request('POST', `${base}/models/tiny/download`, { headers: operator })
    assert.equal([downloaded.status, downloaded.json.downloaded], [200, true])
    const setDefault = await daemon.request('PUT', `${base}/models/default`, { body: { model: 'tiny' }, headers: operator })
    assert.equal(setDefault.json, { default_model: 'tiny' })

    const created = await daemon.request('POST', `${base}/recordings`, {
      body: { audio_base64: clip(3), language: 'en' },
      headers: operator,
    })
    assert.is(created.status, 201, created.text)
    const recording = created.json
    assert.equal(Object.keys(recording).sort(), ['created_at', 'duration_ms', 'id', 'language', 'model', 'text'])
    assert.is(recording.model, 'tiny')
    assert.is(recording.language, 'en')
    assert.is(recording.duration_ms, 3000)
    assert.match(recording.text, /^hello( hello)*$/) // the synthetic model's only word
    assert.ok(!Number.isNaN(Date.parse(recording.created_at)))
    const audio = fs.readFileSync(path.join(daemon.dataDir, 'recordings', `${recording.id}.wav`))
    assert.equal(audio, testClipWav(3)) // already the engine's format: stored as sent

    const changed = await daemon.request('PUT', `${base}/models/default`, { body: { model: 'base' }, headers: operator })
    assert.equal(changed.json, { default_model: 'base' })
    const again = await daemon.request('GET', `${base}/recordings/${recording.id}`, { headers: operator })
    assert.equal([again.status, again.json], [200, recording])
  })

  engine('a user uploads a 44.1 kHz stereo clip with a named model; each caller sees only their own', async () => {
    const { daemon, operator, userAuth } = e!
    const stereo = wavFile({ rate: 44_100, channels: 2, bits: 16, frames: 44_100 * 2.5 })
    const created = await daemon.request('POST', `${base}/recordings`, {
      body: { audio_base64: stereo.toString('base64'), model: 'tiny' }, // the default is base, not downloaded
      headers: userAuth,
    })
    assert.is(created.status, 201, created.text)
    assert.is(created.json.model, 'tiny')
    assert.is(created.json.duration_ms, 2500)
    assert.match(created.json.language, /^[a-z]{2,3}$/) // detected: `auto` is the default language
    assert.match(created.json.text, /hello/)
    const stored = fs.readFileSync(path.join(daemon.dataDir, 'recordings', `${created.json.id}.wav`))
    assert.equal([stored.readUInt16LE(22), stored.readUInt32LE(24), stored.readUInt16LE(34)], [1, 16_000, 16])

    const mine = await daemon.request('GET', `${base}/recordings`, { headers: userAuth })
    assert.equal(mine.json.recordings.map((r: { id: string }) => r.id), [created.json.id])
    const operators = await daemon.request('GET', `${base}/recordings`, { headers: operator })
    assert.is(operators.json.recordings.length, 1)
    assert.is.not(operators.json.recordings[0].id, created.json.id)
    const foreign = await daemon.request('GET', `${base}/recordings/${created.json.id}`, { headers: operator })
    assert.is(foreign.status, 404)
  })

  engine('recordings survive a restart', async () => {
    const { operator } = e!
    const before = await e!.daemon.request('GET', `${base}/recordings`, { headers: operator })
    const dataDir = e!.daemon.dataDir
    await e!.daemon.stop()
    e!.daemon = await startDaemon({ dataDir })
    const after = await e!.daemon.request('GET', `${base}/recordings`, { headers: operator })
    assert.equal(after.json, before.json)
    assert.is(after.json.recordings[0].model, 'tiny')
  })

} else {
  console.log(
    'SKIP transcription over HTTP: @fugood/whisper.node is not installed (an optional dependency); the input, 409 and ' +
      '501 checks above still run.',
  )
}
engine.run()
