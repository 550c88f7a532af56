// The CLI progress bar for `relaypay models download <name>`, driven by a real registry and loopback host.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { followDownload, formatProgressBar } from '../../src/models/index.js'
import { rejection, startFixture, type Fixture } from './fixture.js'

const bar = suite('the download progress bar')
let f: Fixture | undefined
bar.after.each(async () => {
  await f?.close()
  f = undefined
})

bar('draws the fraction received', () => {
  assert.is(
    formatProgressBar({ state: 'downloading', received_bytes: 44_400_000, total_bytes: 148_000_000 }),
    '[#########.....................]  30%  44.4 / 148.0 MB',
  )
  assert.is(
    formatProgressBar({ state: 'downloaded', received_bytes: 10, total_bytes: 10 }, 10),
    '[##########] 100%  0.0 / 0.0 MB',
  )
  assert.is(formatProgressBar({ state: 'not_downloaded', received_bytes: 0, total_bytes: 0 }, 4), '[....]   0%  0.0 / 0.0 MB')
})

bar('follows a running download: a partial frame while held, a full frame at the end', async () => {
  f = await startFixture()
  const fixture = f
  fixture.host.fault('ggml-small.bin', 'hold')
  const frames: string[] = []
  const paused = fixture.host.paused()
  const following = followDownload({
    download: () => fixture.registry.download('small'),
    progress: async () => fixture.registry.progress('small'),
    draw: line => frames.push(line),
    intervalMs: 5,
  })
  await paused
  const deadline = Date.now() + 2000
  while (!frames.some(line => line.includes(' 50%')) && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 5))
  }
  assert.ok(frames.some(line => line.includes(' 50%')), `frames: ${frames.slice(-3).join(' | ')}`)
  fixture.host.resume()
  const model = await following
  assert.is(model.downloaded, true)
  assert.match(frames[frames.length - 1], /^\[#{30}\] 100%/)
})

bar('a failed download rejects after drawing its last state', async () => {
  f = await startFixture()
  const fixture = f
  fixture.host.fault('ggml-tiny.bin', 'not_found')
  const frames: string[] = []
  const err = await rejection(
    followDownload({
      download: () => fixture.registry.download('tiny'),
      progress: async () => fixture.registry.progress('tiny'),
      draw: line => frames.push(line),
      intervalMs: 5,
    }),
  )
  assert.is((err as Error).message, 'Model download failed: HTTP 404 Not Found')
  assert.match(frames[frames.length - 1], /^\[\.{30}\]   0%/)
})
bar.run()
