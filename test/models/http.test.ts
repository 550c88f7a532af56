// The model registry over HTTP as its clients see it: shapes, status codes and detail texts.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startModelHost, type ModelHost } from '../support/model-host.js'

const base = '/transcription/api/v1'
const models = suite('model registry over HTTP')
let daemon: TestDaemon
let host: ModelHost
const auth = () => ({ authorization: `Bearer ${daemon.adminToken}` })

models.before(async () => {
  host = await startModelHost({ chunkBytes: 1024 })
  daemon = await startDaemon({ config: `[models]\nengine = "assume_installed"\nbase_url = "${host.baseUrl}"\nstall_timeout_seconds = 5\n` })
})
models.after(async () => {
  await daemon.stop()
  await host.close()
})

models('every route needs an authenticated user', async () => {
  for (const [method, path] of [['GET', '/models'], ['GET', '/models/default'], ['PUT', '/models/default'], ['POST', '/models/tiny/download']]) {
    const res = await daemon.request(method!, base + path!, method === 'PUT' ? { body: { model: 'tiny' } } : {})
    assert.is(res.status, 401, `${method} ${path}`)
    assert.ok(res.json.detail)
  }
})

models('GET /models lists the catalogue with the default and the availability rule', async () => {
  const res = await daemon.request('GET', `${base}/models`, { headers: auth() })
  assert.is(res.status, 200)
  assert.is(res.json.default_model, 'base')
  assert.is(res.json.local_engine_installed, true)
  const names = res.json.models.map((m: { name: string }) => m.name)
  assert.equal(names, ['tiny', 'tiny.en', 'base', 'base.en', 'small', 'small.en', 'medium', 'medium.en', 'large-v3', 'turbo'])
  for (const m of res.json.models) {
    assert.equal(Object.keys(m).sort(), ['approx_memory', 'available', 'description', 'display_name', 'downloaded', 'is_default', 'name', 'params', 'relative_speed'])
    assert.is(m.is_default, m.name === 'base')
    assert.is(m.available, m.downloaded) // engine installed: available = downloaded
  }
})

models('PUT /models/default validates the name and the change survives a restart', async () => {
  const tooLong = await daemon.request('PUT', `${base}/models/default`, { body: { model: 'x'.repeat(33) }, headers: auth() })
  assert.is(tooLong.status, 422)
  assert.ok(typeof tooLong.json.detail === 'string' && tooLong.json.detail.length > 0)
  const unknown = await daemon.request('PUT', `${base}/models/default`, { body: { model: 'nope' }, headers: auth() })
  assert.is(unknown.status, 422)
  const missing = await daemon.request('PUT', `${base}/models/default`, { body: {}, headers: auth() })
  assert.is(missing.status, 422)
  const set = await daemon.request('PUT', `${base}/models/default`, { body: { model: 'tiny' }, headers: auth() })
  assert.equal([set.status, set.json], [200, { default_model: 'tiny' }])
  const dataDir = daemon.dataDir
  await daemon.stop()
  daemon = await startDaemon({ dataDir })
  const after = await daemon.request('GET', `${base}/models/default`, { headers: auth() })
  assert.equal(after.json, { default_model: 'tiny' })
})

models('POST /models/{name}/download: unknown name → 422, host failure → 500 with the reason and no file left', async () => {
  const unknown = await daemon.request('POST', `${base}/models/nope/download`, { headers: auth() })
  assert.is(unknown.status, 422)
  const failed = await daemon.request('POST', `${base}/models/tiny/download`, { headers: auth() })
  assert.is(failed.status, 500)
  assert.is(failed.json.detail, 'Model download failed: HTTP 404 Not Found')
  const cache = path.join(daemon.dataDir, 'models')
  assert.equal(fs.existsSync(cache) ? fs.readdirSync(cache) : [], [])
})

models('the daemon keeps answering while a download runs, and reports its progress', async () => {
  host.serve('ggml-tiny.bin', new Uint8Array(64 * 1024).fill(7))
  host.fault('ggml-tiny.bin', 'hold')
  const download = daemon.request('POST', `${base}/models/tiny/download`, { headers: auth() })
  await host.paused()
  assert.is((await daemon.request('GET', '/api/health')).json.status, 'OK')
  // The host has sent half the file; the daemon counts it as the bytes arrive, so poll briefly.
  let progress = await daemon.request('GET', `${base}/models/tiny/download`, { headers: auth() })
  for (let i = 0; i < 40 && progress.json.received_bytes === 0; i++) {
    await new Promise(resolve => setTimeout(resolve, 50))
    progress = await daemon.request('GET', `${base}/models/tiny/download`, { headers: auth() })
  }
  assert.is(progress.json.state, 'downloading')
  assert.ok(progress.json.received_bytes > 0, `received ${progress.json.received_bytes}`)
  host.resume()
  const done = await download
  // The served bytes are not the real model: the size check refuses them.
  assert.is(done.status, 500)
  assert.match(done.json.detail, /^Model download failed: size mismatch/)
  const after = await daemon.request('GET', `${base}/models/tiny/download`, { headers: auth() })
  assert.is(after.json.state, 'failed')
})

models.run()

const noEngine = suite('without the local engine')
noEngine('download answers 501 naming the optional install, and nothing is available', async () => {
  const d = await startDaemon({ config: '[models]\nengine = "missing"\n' })
  try {
    const res = await d.request('POST', `${base}/models/tiny/download`, { headers: { authorization: `Bearer ${d.adminToken}` } })
    assert.is(res.status, 501)
    assert.is(res.json.detail, 'Local transcription engine is not installed on this server. Install the optional extra: npm install @fugood/whisper.node')
    const list = await d.request('GET', `${base}/models`, { headers: { authorization: `Bearer ${d.adminToken}` } })
    assert.is(list.json.local_engine_installed, false)
    assert.ok(list.json.models.every((m: { available: boolean }) => !m.available))
  } finally {
    await d.stop()
  }
})
noEngine.run()

const cli = suite('relaypay models download')
cli('draws progress and prints the answer; exits 1 when the download fails', async () => {
  const { spawn } = await import('node:child_process')
  const { cliPath } = await import('../support/daemon.js')
  const modelHost = await startModelHost({ chunkBytes: 1024 })
  modelHost.serve('ggml-base.en.bin', new Uint8Array(32 * 1024).fill(1))
  modelHost.fault('ggml-base.en.bin', 'hold')
  const d = await startDaemon({ config: `[models]\nengine = "assume_installed"\nbase_url = "${modelHost.baseUrl}"\n` })
  try {
    const child = spawn(process.execPath, [cliPath, 'models', 'download', 'base.en', '--data-dir', d.dataDir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', c => (stdout += c))
    child.stderr.on('data', c => (stderr += c))
    await modelHost.paused()
    await new Promise(resolve => setTimeout(resolve, 700)) // a few progress frames while the transfer is held
    modelHost.resume()
    const code = await new Promise(resolve => child.on('exit', resolve))
    assert.is(code, 1)
    assert.match(stderr, /\[#*\.*\]\s+\d+%\s+[\d.]+ \/ [\d.]+ MB/)
    assert.match(JSON.parse(stdout).detail, /^Model download failed: size mismatch/)
  } finally {
    await d.stop()
    await modelHost.close()
  }
})
cli.run()
