// POST /models/{name}/download through the registry, against a loopback model host.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { OperationError } from '../../src/bus/errors.js'
import { defaultModelsBaseUrl, engineMissingDetail } from '../../src/models/index.js'
import type { HostFault } from '../support/model-host.js'
import { eventually, rejection, startFixture, type Fixture } from './fixture.js'

let f: Fixture

function assertDownloadFailed(err: unknown, reason: string) {
  assert.instance(err, OperationError)
  const opErr = err as OperationError
  assert.is(opErr.message, `Model download failed: ${reason}`)
  assert.is(opErr.code, 'upstream_failed')
  assert.is(opErr.status, 500)
}

const ok = suite('a download puts the verified model in the cache')
ok.after.each(async () => f.close())

ok('the model arrives under its final name with the catalogue size and SHA-1, and becomes available', async () => {
  f = await startFixture({ installed: true })
  const model = await f.registry.download('small')
  assert.equal(
    [model.name, model.display_name, model.downloaded, model.available, model.is_default],
    ['small', 'Small', true, true, false],
  )
  assert.equal(f.cacheFiles(), ['ggml-small.bin'])
  const bytes = fs.readFileSync(path.join(f.cacheDir, 'ggml-small.bin'))
  const entry = f.catalogue.find(e => e.name === 'small')!
  assert.is(bytes.length, entry.bytes)
  assert.is(createHash('sha1').update(bytes).digest('hex'), entry.sha1)
  assert.is((await f.registry.list()).models.find(m => m.name === 'small')!.available, true)
  assert.is(f.host.requests('ggml-small.bin'), 1)
})

ok('a cached model answers at once without another transfer', async () => {
  f = await startFixture()
  await f.registry.download('tiny')
  const again = await f.registry.download('tiny')
  assert.is(again.downloaded, true)
  assert.is(f.host.requests('ggml-tiny.bin'), 1)
})

ok('is_default reflects the default at the end of the download, not at its start', async () => {
  f = await startFixture()
  f.host.fault('ggml-small.bin', 'hold')
  const download = f.registry.download('small')
  await f.host.paused()
  await f.registry.setDefault('small')
  f.host.resume()
  assert.is((await download).is_default, true)
})

ok('a slow but steady transfer is not a stall: the timeout counts silence, not total time', async () => {
  // Generous margins: on a loaded 2-core machine a 20 ms gap can stretch far beyond 20 ms.
  f = await startFixture({ host: { chunkBytes: 8 * 1024, chunkDelayMs: 60 }, registry: { stallTimeoutMs: 1000 } })
  const started = process.hrtime.bigint()
  assert.is((await f.registry.download('small')).downloaded, true) // 32 chunks 60 ms apart
  assert.ok(Number(process.hrtime.bigint() - started) / 1e6 > 1000, 'the transfer outlasted the stall timeout')
})

ok('HF_ENDPOINT pointed at a mirror makes the default base URL fetch from it', async () => {
  f = await startFixture()
  const mirror = new URL(f.host.baseUrl).origin
  const registry = f.reopen({ baseUrl: defaultModelsBaseUrl({ HF_ENDPOINT: mirror }) })
  assert.is((await registry.download('tiny')).downloaded, true)
  assert.is(f.host.requests('ggml-tiny.bin'), 1)
})
ok.run()

const refused = suite('a download is refused before any transfer')
refused.after.each(async () => f.close())

refused('engine not installed: 501 naming the optional install, nothing fetched', async () => {
  f = await startFixture({ installed: false })
  const err = (await rejection(f.registry.download('tiny'))) as OperationError
  assert.instance(err, OperationError)
  assert.is(err.status, 501)
  assert.is(err.code, 'not_implemented')
  assert.is(
    err.message,
    'Local transcription engine is not installed on this server. Install the optional extra: npm install @fugood/whisper.node',
  )
  assert.is(err.message, engineMissingDetail)
  assert.is(f.host.requests('ggml-tiny.bin'), 0)
  assert.equal(f.cacheFiles(), [])
})

refused('unknown name: 422 with the validation message, checked before the engine', async () => {
  f = await startFixture({ installed: false })
  const err = (await rejection(f.registry.download('medium'))) as OperationError
  assert.instance(err, OperationError)
  assert.is(err.status, 422)
  assert.is(err.code, 'invalid_input')
  assert.is(err.message, "Unknown model 'medium'; expected one of: tiny, base, small")
})
refused.run()

const failures = suite('a failed download answers 500 with the reason and leaves no file behind')
failures.after.each(async () => f.close())

const half = (256 * 1024) >> 1
for (const c of [
  { fault: 'not_found', reason: 'HTTP 404 Not Found' },
  { fault: 'corrupt', reason: 'checksum mismatch' },
  { fault: 'stall', reason: 'timed out: no data received for 300 ms' },
] as { fault: HostFault; reason: string }[]) {
  failures(`${c.fault}: ${c.reason}`, async () => {
    // Only the stall waits out the short timeout: on a busy machine the other faults' transfers could fall
    // silent for 300 ms too, and end as a stall instead of their own failure.
    f = await startFixture({ registry: { stallTimeoutMs: c.fault === 'stall' ? 300 : 10_000 } })
    f.host.fault('ggml-small.bin', c.fault)
    assertDownloadFailed(await rejection(f.registry.download('small')), c.reason)
    assert.equal(f.cacheFiles(), [])
    const listed = (await f.registry.list()).models.find(m => m.name === 'small')!
    assert.equal([listed.downloaded, listed.available], [false, false])
    assert.is(f.registry.progress('small').state, 'failed')
  })
}

failures('truncated: connection lost after the bytes that arrived', async () => {
  f = await startFixture()
  f.host.fault('ggml-small.bin', 'truncated')
  const err = await rejection(f.registry.download('small'))
  // The host sends exactly half; undici may drop the last buffered chunk when the stream errors, so the count
  // is whatever was consumed, and the registry's progress must agree with the detail.
  const received = f.registry.progress('small').received_bytes
  assert.ok(received > 0 && received <= half, `received ${received}`)
  assertDownloadFailed(err, `connection lost after ${received} of ${256 * 1024} bytes`)
  assert.equal(f.cacheFiles(), [])
})

failures('a body of the wrong length: size mismatch', async () => {
  f = await startFixture()
  f.host.serve('ggml-small.bin', f.bodies.small.subarray(0, 1000))
  assertDownloadFailed(await rejection(f.registry.download('small')), `size mismatch (got 1000, expected ${256 * 1024})`)
  f.host.serve('ggml-small.bin', Buffer.concat([f.bodies.small, Buffer.alloc(10)]))
  assertDownloadFailed(await rejection(f.registry.download('small')), `size mismatch (more than ${256 * 1024} bytes)`)
  assert.equal(f.cacheFiles(), [])
})

failures('nothing listening at the base URL: fetch failed', async () => {
  f = await startFixture()
  const closed = http.createServer()
  await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise(resolve => closed.close(resolve))
  const registry = f.reopen({ baseUrl: `http://127.0.0.1:${port}/models` })
  assertDownloadFailed(await rejection(registry.download('tiny')), 'fetch failed (ECONNREFUSED)')
  assert.equal(f.cacheFiles(), [])
})

failures('a failed download can be retried and then succeeds', async () => {
  f = await startFixture()
  f.host.fault('ggml-tiny.bin', 'corrupt')
  await rejection(f.registry.download('tiny'))
  f.host.fault('ggml-tiny.bin', undefined)
  assert.is((await f.registry.download('tiny')).downloaded, true)
  assert.equal(f.cacheFiles(), ['ggml-tiny.bin'])
})

failures('a corrupt download never replaces a good cached file', async () => {
  f = await startFixture()
  await f.registry.download('tiny')
  fs.truncateSync(path.join(f.cacheDir, 'ggml-tiny.bin'), 10) // damaged from outside: no longer counts
  f.host.fault('ggml-tiny.bin', 'corrupt')
  await rejection(f.registry.download('tiny'))
  assert.equal(f.cacheFiles(), ['ggml-tiny.bin'])
  assert.is(fs.statSync(path.join(f.cacheDir, 'ggml-tiny.bin')).size, 10)
})
failures.run()

const sharing = suite('concurrent downloads of one model share one transfer')
sharing.after.each(async () => f.close())

sharing('two calls in the same tick: one request to the host, both answered', async () => {
  f = await startFixture()
  const [a, b] = await Promise.all([f.registry.download('small'), f.registry.download('small')])
  assert.equal([a.downloaded, b.downloaded], [true, true])
  assert.is(f.host.requests('ggml-small.bin'), 1)
})

sharing('a second call mid-transfer joins it instead of starting another', async () => {
  f = await startFixture()
  f.host.fault('ggml-small.bin', 'hold')
  const first = f.registry.download('small')
  await f.host.paused()
  const second = f.registry.download('small')
  f.host.resume()
  const [a, b] = await Promise.all([first, second])
  assert.equal([a.available, b.available], [true, true])
  assert.is(f.host.requests('ggml-small.bin'), 1)
})

sharing('both callers see the same failure', async () => {
  f = await startFixture()
  f.host.fault('ggml-small.bin', 'corrupt')
  const errors = await Promise.all([rejection(f.registry.download('small')), rejection(f.registry.download('small'))])
  for (const err of errors) assertDownloadFailed(err, 'checksum mismatch')
  assert.is(f.host.requests('ggml-small.bin'), 1)
})

sharing('one caller leaving does not stop the transfer for the other', async () => {
  f = await startFixture()
  f.host.fault('ggml-small.bin', 'hold')
  const leaving = new AbortController()
  const first = f.registry.download('small', leaving.signal)
  const second = f.registry.download('small')
  await f.host.paused()
  leaving.abort()
  assertDownloadFailed(await rejection(first), 'aborted')
  f.host.resume()
  assert.is((await second).downloaded, true)
  assert.is(f.host.requests('ggml-small.bin'), 1)
})

sharing('the last caller leaving stops the transfer and removes the partial file', async () => {
  f = await startFixture({ registry: { stallTimeoutMs: 10_000 } }) // only the caller's abort may end it
  f.host.fault('ggml-small.bin', 'hold')
  const leaving = new AbortController()
  const download = f.registry.download('small', leaving.signal)
  await f.host.paused()
  await eventually(() => f.registry.progress('small').received_bytes > 0, 'the first bytes')
  assert.is(f.cacheFiles().length, 1) // the temporary file exists while the transfer runs
  leaving.abort()
  assertDownloadFailed(await rejection(download), 'aborted')
  await eventually(() => f.host.disconnects('ggml-small.bin') === 1, 'the host to see the connection closed')
  await eventually(() => f.cacheFiles().length === 0, 'the partial file to be removed')
})
sharing.run()

const progress = suite('progress and responsiveness during a download')
progress.after.each(async () => f.close())

progress('a stalled transfer reports the bytes received so far, then failed', async () => {
  f = await startFixture({ registry: { stallTimeoutMs: 1500 } })
  f.host.fault('ggml-small.bin', 'stall')
  assert.equal(f.registry.progress('small'), { state: 'not_downloaded', received_bytes: 0, total_bytes: 256 * 1024 })
  const download = f.registry.download('small')
  const paused = await f.host.paused()
  await eventually(() => f.registry.progress('small').received_bytes === paused.sentBytes, 'the sent half to arrive')
  assert.equal(f.registry.progress('small'), { state: 'downloading', received_bytes: half, total_bytes: 256 * 1024 })
  assertDownloadFailed(await rejection(download), 'timed out: no data received for 1500 ms')
  assert.equal(f.registry.progress('small'), { state: 'failed', received_bytes: half, total_bytes: 256 * 1024 })
})

progress('the event loop keeps turning and other requests answer while a download runs', async () => {
  f = await startFixture({ host: { chunkBytes: 8 * 1024, chunkDelayMs: 2 } })
  f.host.fault('ggml-small.bin', 'hold')
  let turns = 0
  let counting = true
  const count = () => {
    turns += 1
    if (counting) setImmediate(count)
  }
  setImmediate(count)
  let finished = false
  const download = f.registry.download('small').finally(() => {
    finished = true
  })
  await f.host.paused()
  // Other operations answer while the transfer is open.
  assert.is((await f.registry.list()).models.length, 3)
  await f.registry.setDefault('tiny')
  assert.equal(await f.registry.getDefault(), { default_model: 'tiny' })
  assert.is(f.registry.progress('small').state, 'downloading')
  assert.is(finished, false)
  const turnsAtPause = turns
  f.host.resume()
  await download
  counting = false
  // The second half arrives as 16 chunks 2 ms apart; a transfer blocking the loop would leave turns flat.
  assert.ok(turns - turnsAtPause > 16, `event loop turns during the second half: ${turns - turnsAtPause}`)
  assert.ok(turnsAtPause > 0)
})

progress('closing the registry aborts transfers in flight and removes their partial files', async () => {
  f = await startFixture({ registry: { stallTimeoutMs: 10_000 } })
  f.host.fault('ggml-small.bin', 'hold')
  const download = f.registry.download('small')
  await f.host.paused()
  await f.registry.close()
  assertDownloadFailed(await rejection(download), 'aborted')
  assert.equal(f.cacheFiles(), [])
})

progress('temporary files older than an hour are swept at start; younger ones are left alone', async () => {
  f = await startFixture()
  fs.mkdirSync(f.cacheDir, { recursive: true })
  const old = path.join(f.cacheDir, 'ggml-base.bin.4242.part')
  const young = path.join(f.cacheDir, 'ggml-tiny.bin.4343.part')
  fs.writeFileSync(old, 'x')
  fs.writeFileSync(young, 'x')
  const now = 1_700_000_000_000 // the fixture clock
  fs.utimesSync(old, new Date(now - 2 * 3600_000), new Date(now - 2 * 3600_000))
  fs.utimesSync(young, new Date(now - 60_000), new Date(now - 60_000))
  f.reopen()
  assert.equal(f.cacheFiles(), ['ggml-tiny.bin.4343.part'])
})
progress.run()
