// Stored reads take turns by client address (src/relay/reader.ts): a client holding twenty big REQs open gets no
// more pages than one with a single REQ, so the single REQ is answered long before the flood is.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { WebSocket } from 'ws'
import { WebSocket as RelaySocket } from '../../src/vendor/ws.js'
import { startRelay } from '../../src/relay/index.js'
import { seedRelayStore } from '../support/attack.js'
import { connectWire } from './wire-client.js'

const test = suite('stored reads take turns by address')

test('one address with twenty REQs over 2,000 stored events does not hold back another address\'s REQ', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-turns-'))
  seedRelayStore(dataDir, { ephemeral: 0, stored: 2000, contentBytes: 50 })
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir, limits: { pageSize: 5, maxLimit: 2000 } })
  // Counted where the relay sends, not where this process reads: the relay runs in this process, and its side of
  // each connection is a socket of the bundled ws (src/vendor), whose send is watched here. Counted on arrival, what sat in the socket buffers (up to the relay's
  // pending-bytes cap per REQ, thousands of events on a loaded machine) and what the flooder got alone between the
  // wallet's answer and this test noticing it were charged to the window.
  let flooded = 0
  let window: { start: number; end?: number } | undefined
  const originalSend = RelaySocket.prototype.send
  RelaySocket.prototype.send = function (this: RelaySocket & { _isServer?: boolean; _socket?: { remoteAddress?: string } }, ...args: Parameters<RelaySocket['send']>) {
    const text = String(args[0])
    if (this._isServer && text.startsWith('["EVENT"')) {
      if (this._socket?.remoteAddress === '127.0.0.2') flooded++
      else if (text.startsWith('["EVENT","mine"')) window ??= { start: flooded }
    } else if (this._isServer && text.startsWith('["EOSE","mine"') && window) window.end = flooded
    return originalSend.apply(this, args)
  } as RelaySocket['send']
  const flooder = new WebSocket(relay.url, { localAddress: '127.0.0.2' })
  try {
    await new Promise((resolve, reject) => flooder.once('open', resolve).once('error', reject))
    // Twenty REQs of 2,000 events each, 5 a page: 8,000 pages.
    for (let i = 0; i < 20; i++) flooder.send(JSON.stringify(['REQ', `f${i}`, { kinds: [1], limit: 2000 }]))
    while (flooded < 50) await new Promise(resolve => setTimeout(resolve, 5))
    const wallet = await connectWire(relay.url)
    // 100 events: 20 pages. Taking turns by address, the flooder gets about as many meanwhile; taking turns by
    // REQ, it would get twenty times as many (about 2,000 events).
    const got = await wallet.query('mine', { kinds: [1], limit: 100 })
    wallet.close()
    assert.is(got.length, 100)
    assert.ok(window?.end !== undefined, 'the relay sent the wallet its events and then EOSE')
    const meanwhile = window.end - window.start
    assert.ok(meanwhile < 1000, `the relay sent the flooder ${meanwhile} events while the other address waited for its 100`)
  } finally {
    RelaySocket.prototype.send = originalSend
    flooder.terminate()
    await relay.close()
  }
})

test.run()
