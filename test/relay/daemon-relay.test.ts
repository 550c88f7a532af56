// The offline default runs the embedded relay; `relaypay relay` runs it alone.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { WebSocket } from 'ws'
import { useWebSocketImplementation, Relay } from 'nostr-tools/relay'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { cliPath, startDaemon, tempDataDir } from '../support/daemon.js'

useWebSocketImplementation(WebSocket)
const relaySuite = suite('embedded relay of the daemon')

async function roundTrip(url: string) {
  const info = await fetch(url.replace('ws://', 'http://'), { headers: { accept: 'application/nostr+json' } })
  assert.is(info.status, 200)
  assert.ok(((await info.json()) as { supported_nips: number[] }).supported_nips.includes(1))
  const relay = await Relay.connect(url)
  const event = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: 'hello' }, generateSecretKey())
  await relay.publish(event)
  const seen = await new Promise<string>(resolve => {
    const sub = relay.subscribe([{ ids: [event.id] }], { onevent: e => { sub.close(); resolve(e.content) } })
  })
  relay.close()
  assert.is(seen, 'hello')
}

relaySuite('with no relays configured the daemon serves its own and names it in daemon.json', async () => {
  const daemon = await startDaemon()
  try {
    const info = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8'))
    assert.is(info.relays.length, 1)
    assert.match(info.relays[0], /^ws:\/\/127\.0\.0\.1:\d+$/)
    await roundTrip(info.relays[0])
  } finally {
    await daemon.stop()
  }
})

relaySuite('`relaypay relay` runs the relay alone and stops on SIGTERM', async () => {
  const child = spawn(process.execPath, [cliPath, 'relay', '--data-dir', tempDataDir(), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', chunk => (output += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(output)), 15_000)
    child.stdout.on('data', () => {
      const line = output.split('\n').find(l => l.includes('"relay listening"'))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line).url)
      }
    })
  })
  await roundTrip(url)
  child.kill('SIGTERM')
  const code = await new Promise(resolve => child.on('exit', resolve))
  assert.is(code, 0)
})

relaySuite.run()
