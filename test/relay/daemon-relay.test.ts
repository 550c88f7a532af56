// The offline default runs the embedded relay; `relaypay relay` runs it alone.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { WebSocket } from 'ws'
import { useWebSocketImplementation, Relay } from 'nostr-tools/relay'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { cliPath, startDaemon, tempDataDir } from '../support/daemon.js'
import { scanLogKeysOf } from '../support/log-keys.js'
import { appProfile } from '../support/pub-client.js'

useWebSocketImplementation(WebSocket)
const relaySuite = suite('embedded relay of the daemon')

/** Publishes an event of `kind` (with `tags`) and reads it back. */
async function roundTrip(url: string, kind = 1, tags: string[][] = []) {
  const info = await fetch(url.replace('ws://', 'http://'), { headers: { accept: 'application/nostr+json' } })
  assert.is(info.status, 200)
  assert.ok(((await info.json()) as { supported_nips: number[] }).supported_nips.includes(1))
  const relay = await Relay.connect(url)
  const event = finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), tags, content: 'hello' }, generateSecretKey())
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
    // It carries what the daemon serves: a request addressed to the default app's key.
    await roundTrip(info.relays[0], 21000, [['p', appProfile(daemon.dataDir).pubkey]])
    // And nothing else: it is no free storage for strangers.
    const relay = await Relay.connect(info.relays[0])
    const note = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: 'hello' }, generateSecretKey())
    const refused = await relay.publish(note).then(() => 'accepted', (err: Error) => err.message)
    relay.close()
    assert.match(refused, /^blocked: /)
  } finally {
    await daemon.stop()
  }
})

relaySuite('`relaypay relay` runs the relay alone and stops on SIGTERM', async () => {
  const child = spawn(process.execPath, [cliPath, 'relay', '--data-dir', tempDataDir(), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  scanLogKeysOf(child, '`relaypay relay`')
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
