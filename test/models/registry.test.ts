// The model registry's list and default rules, through the registry and its handlers.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { OperationError } from '../../src/bus/errors.js'
import { openStore } from '../../src/store/index.js'
import {
  createModelRegistry,
  defaultModelsBaseUrl,
  detectLocalEngine,
  fixedEngine,
  modelHandlers,
  whisperCatalogue,
} from '../../src/models/index.js'
import { fixedClock, placeInCache, rejection, silentLog, startFixture, type Fixture } from './fixture.js'

const listing = suite('GET /models reports every supported model and whether it is usable')
let f: Fixture
listing.after.each(async () => f.close())

listing('nothing cached: every model listed, none downloaded or available, base is the default', async () => {
  f = await startFixture({ installed: true })
  const out = await f.registry.list()
  assert.is(out.default_model, 'base')
  assert.is(out.local_engine_installed, true)
  assert.equal(
    out.models.map(m => [m.name, m.downloaded, m.available, m.is_default]),
    [
      ['tiny', false, false, false],
      ['base', false, false, true],
      ['small', false, false, false],
    ],
  )
})

listing('a cached model is available only when the engine is installed', async () => {
  for (const installed of [true, false]) {
    f = await startFixture({ installed })
    placeInCache(f, 'tiny')
    const out = await f.registry.list()
    assert.is(out.local_engine_installed, installed)
    const tiny = out.models.find(m => m.name === 'tiny')!
    assert.is(tiny.downloaded, true)
    assert.is(tiny.available, installed, `engine installed: ${installed}`)
    assert.is(out.models.find(m => m.name === 'base')!.available, false)
    await f.close()
  }
  f = await startFixture() // for after.each
})

listing('a cached file of the wrong size does not count as downloaded', async () => {
  f = await startFixture({ installed: true })
  placeInCache(f, 'tiny', f.bodies.tiny.subarray(0, 100))
  const tiny = (await f.registry.list()).models.find(m => m.name === 'tiny')!
  assert.is(tiny.downloaded, false)
  assert.is(tiny.available, false)
})

listing('each record carries the specified fields and the catalogue metadata', async () => {
  f = await startFixture()
  const base = (await f.registry.list()).models.find(m => m.name === 'base')!
  assert.equal(Object.keys(base).sort(), [
    'approx_memory',
    'available',
    'description',
    'display_name',
    'downloaded',
    'is_default',
    'name',
    'params',
    'relative_speed',
  ])
  assert.is(base.params, '74M')
  assert.is(base.approx_memory, '~390 MB')
  assert.is(base.relative_speed, '~7x')
})
listing.run()

const catalogue = suite('the real catalogue')

catalogue('lists the ten whisper.cpp models with names the 32-character rule accepts', () => {
  assert.equal(
    whisperCatalogue.map(e => e.name),
    ['tiny', 'tiny.en', 'base', 'base.en', 'small', 'small.en', 'medium', 'medium.en', 'large-v3', 'turbo'],
  )
  for (const e of whisperCatalogue) {
    assert.ok(e.name.length >= 1 && e.name.length <= 32, e.name)
    assert.match(e.sha1, /^[0-9a-f]{40}$/)
    assert.ok(Number.isSafeInteger(e.bytes) && e.bytes > 70_000_000, e.name)
  }
  assert.is(whisperCatalogue.find(e => e.name === 'turbo')!.file, 'large-v3-turbo')
})

catalogue('a registry over the real catalogue defaults to base and fetches from the whisper.cpp repository', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-models-'))
  const store = openStore({ dataDir })
  try {
    const registry = createModelRegistry({
      sql: store.sql,
      dataDir,
      baseUrl: defaultModelsBaseUrl({}),
      engine: fixedEngine(false),
      clock: fixedClock,
      log: silentLog,
    })
    const out = await registry.list()
    assert.is(out.default_model, 'base')
    assert.is(out.models.length, 10)
    assert.equal(out.models.filter(m => m.is_default).map(m => m.name), ['base'])
  } finally {
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

catalogue('the default base URL is the public repository, and HF_ENDPOINT replaces its host', () => {
  assert.is(defaultModelsBaseUrl({}), 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main')
  assert.is(
    defaultModelsBaseUrl({ HF_ENDPOINT: 'https://hf-mirror.com/' }),
    'https://hf-mirror.com/ggerganov/whisper.cpp/resolve/main',
  )
  assert.is(defaultModelsBaseUrl({ HF_ENDPOINT: '' }), 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main')
})
catalogue.run()

const defaults = suite('PUT /models/default sets the global default')
defaults.after.each(async () => f.close())

defaults('the default survives a restart and shows in the list', async () => {
  f = await startFixture()
  assert.equal(await f.registry.setDefault('small'), { default_model: 'small' })
  const reopened = f.reopen()
  assert.equal(await reopened.getDefault(), { default_model: 'small' })
  const out = await reopened.list()
  assert.is(out.default_model, 'small')
  assert.equal(out.models.filter(m => m.is_default).map(m => m.name), ['small'])
})

defaults('the default does not need to be downloaded', async () => {
  f = await startFixture({ installed: false })
  assert.equal(await f.registry.setDefault('tiny'), { default_model: 'tiny' })
})

for (const c of [
  { because: 'an unknown name', model: 'huge', detail: "Unknown model 'huge'; expected one of: tiny, base, small" },
  { because: 'an empty name', model: '', detail: 'Model name must be a string of 1 to 32 characters' },
  { because: 'a name over 32 characters', model: 'x'.repeat(33), detail: 'Model name must be a string of 1 to 32 characters' },
  { because: 'a name in the wrong case', model: 'Base', detail: "Unknown model 'Base'; expected one of: tiny, base, small" },
]) {
  defaults(`refuses ${c.because} with 422 and keeps the old default`, async () => {
    f = await startFixture()
    await f.registry.setDefault('tiny')
    const err = await rejection(f.registry.setDefault(c.model))
    assert.instance(err, OperationError)
    const opErr = err as OperationError
    assert.is(opErr.code, 'invalid_input')
    assert.is(opErr.status, 422)
    assert.is(opErr.message, c.detail)
    assert.equal(await f.reopen().getDefault(), { default_model: 'tiny' })
  })
}

defaults('a stored default dropped from the catalogue reads as the fallback', async () => {
  f = await startFixture()
  await f.registry.setDefault('small')
  const smaller = f.catalogue.filter(e => e.name !== 'small')
  assert.equal(await f.reopen({ catalogue: smaller }).getDefault(), { default_model: 'base' })
})
defaults.run()


const engine = suite('local engine detection')

engine('installed when the package loads, not installed when it is missing or broken', async () => {
  assert.is((await detectLocalEngine({ log: silentLog, load: async () => ({}) })).isInstalled(), true)
  const missing = Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' })
  assert.is((await detectLocalEngine({ log: silentLog, load: () => Promise.reject(missing) })).isInstalled(), false)
  const broken = new Error('libgomp.so.1: cannot open shared object file')
  assert.is((await detectLocalEngine({ log: silentLog, load: () => Promise.reject(broken) })).isInstalled(), false)
})

engine('the default check imports @fugood/whisper.node and agrees with whether it resolves here', async () => {
  let resolves = true
  try {
    await import('@fugood/whisper.node' as string)
  } catch {
    resolves = false
  }
  assert.is((await detectLocalEngine({ log: silentLog })).isInstalled(), resolves)
})
engine.run()
