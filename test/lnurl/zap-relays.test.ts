// Where a zap receipt goes when the zap request names relays besides the daemon's: to each one the outbound guard
// allows (here another relay on loopback, with `[callbacks] allow_loopback` on), never to one it refuses (a URL with
// credentials, pointing at a listener that counts connections), and to the service relay on the daemon's one
// connection to it, the relay transport's. Both relays are `relaypay relay` processes; the service relay sits behind
// a gate that counts the daemon's connections; the test reads both relays directly.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser } from '../support/accounts.js'
import { payFromOutside } from '../support/money.js'
import { startRelayProcess, type RelayProcess } from '../support/relay-process.js'
import { startRelayGate, type RelayGate } from '../support/relay-gate.js'
import { until } from '../support/until.js'
import { decodeLnurl, getAdvertised, lnurlDaemonConfig } from './lnurl-client.js'

useWebSocketImplementation(WebSocket)

const jwtSecret = 'lnurl-zap-relays-test-secret-0123456789'
const test = suite('zap receipts to the relays a zap request names')
let service: RelayProcess
let caller: RelayProcess
let gate: RelayGate
let daemon: TestDaemon
let refused: net.Server
let refusedConnections = 0
const readers: Relay[] = []

/** A `relaypay relay` that takes anyone's events: it is not this daemon's own, so it cannot know the app keys. */
async function openRelay(): Promise<RelayProcess> {
  const dir = tempDataDir()
  fs.writeFileSync(path.join(dir, 'relaypay.toml'), '[nostr]\nrelay_open_writes = true\n')
  return startRelayProcess(dir)
}

test.before(async () => {
  service = await openRelay()
  caller = await openRelay()
  gate = await startRelayGate(service.url)
  refused = net.createServer(socket => {
    refusedConnections++
    socket.destroy()
  })
  await new Promise<void>(resolve => refused.listen(0, '127.0.0.1', resolve))
  daemon = await startDaemon({
    config: `${lnurlDaemonConfig(jwtSecret)}[callbacks]\nallow_loopback = true\n[nostr]\nrelays = ["${gate.url}"]\n`,
  })
})
test.after(async () => {
  for (const reader of readers) reader.close()
  await daemon?.stop()
  await gate?.close()
  await new Promise<void>(resolve => (refused ? refused.close(() => resolve()) : resolve()))
  await caller?.stop()
  await service?.stop()
})

/** The first kind-9735 event for `recipient` on `relayUrl`, stored or to come. */
async function receiptOn(relayUrl: string, recipient: string): Promise<Event> {
  const reader = await Relay.connect(relayUrl)
  readers.push(reader)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.close()
      reject(new Error(`no zap receipt on ${relayUrl} within 30 s`))
    }, 30_000)
    const sub = reader.subscribe([{ kinds: [9735], '#p': [recipient] }], {
      onevent(event) {
        clearTimeout(timer)
        sub.close()
        resolve(event)
      },
    })
  })
}

test('a receipt reaches the service relay and an allowed caller relay, never a refused one', async () => {
  const receiver = await createAppWithUser(daemon, { jwtSecret, identifier: 'zapped' })
  const link = await daemon.request('GET', '/api/user/lnurl_pay/link', { headers: { authorization: receiver.userToken } })
  const payRequest = await getAdvertised(daemon, decodeLnurl(link.json.lnurl))
  assert.is(payRequest.allowsNostr, true)
  const recipient = getPublicKey(generateSecretKey())
  const port = (refused.address() as net.AddressInfo).port
  const zap = finalizeEvent(
    {
      kind: 9734,
      content: '',
      created_at: Math.floor(Date.now() / 1000),
      tags: [['p', recipient], ['relays', gate.url, caller.url, `ws://user:secret@127.0.0.1:${port}`], ['amount', '21000']],
    },
    generateSecretKey(),
  )
  const answer = await getAdvertised(daemon, payRequest.callback, { amount: '21000', nostr: JSON.stringify(zap) })
  assert.is(answer.status, 'OK', JSON.stringify(answer))
  const onService = receiptOn(service.url, recipient)
  const onCaller = receiptOn(caller.url, recipient)
  await payFromOutside(daemon, answer.pr)

  const [first, second] = await Promise.all([onService, onCaller])
  assert.ok(verifyEvent(first!))
  assert.is(first!.pubkey, payRequest.nostrPubkey)
  assert.is(second!.id, first!.id, 'the same receipt on both relays')
  await until(() => /not publishing to a relay the guard refuses/.test(daemon.logs()), 'the refused relay to be logged')
  assert.not.match(daemon.logs(), `secret@127.0.0.1:${port}`, 'the refused URL is not logged')
  assert.is(refusedConnections, 0, 'the refused relay was never connected to')
  assert.is(gate.open(), 1, "the daemon holds one connection to its service relay: receipts share the relay transport's")
})

test.run()
