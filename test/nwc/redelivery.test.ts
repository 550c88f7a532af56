// NIP-47 requests delivered again, with the daemon on two standalone relays: a copy a relay replays to a renewed
// subscription gets no second answer (test/nwc/wallet-connect.test.ts), but a copy published anew reaches the
// daemon live and is answered again with the stored answer, and nothing runs twice.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import path from 'node:path'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { createEventVerifier } from '../../src/transports/nostr/verify.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { balanceOf, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'nwc-redelivery-secret-0123456789abcdef'
const test = suite('NIP-47 requests published again')
const relays: RunningRelay[] = []
const clients: NwcTestClient[] = []
let daemon: TestDaemon

test.before(async () => {
  const { verify } = await createEventVerifier()
  for (let i = 0; i < 2; i++) relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir(), verifyEvent: verify }))
  const config = `${jwtSecretConfig(jwtSecret)}\n[nostr]\nrelays = [${relays.map(relay => `"${relay.url}"`).join(', ')}]\n`
  daemon = await startDaemon({ dataDir: path.join(tempDataDir(), 'data'), config })
})
test.after(async () => {
  clients.forEach(client => client.close())
  await daemon?.stop()
  for (const relay of relays) await relay.close()
})

test('a request published again through a second relay is answered again with the same answer and paid once', async () => {
  const payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'redelivery-payer' })
  const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'redelivery-payee' })
  await ok(daemon, '/api/app/mock/user/blance/set', payer.appToken, { user_identifier: 'redelivery-payer', amount: 5_000 })
  const { connection_uri: uri } = await ok(daemon, '/api/user/nwc/create', payer.userToken, { name: 'redelivery' })
  const [first, second] = await Promise.all(relays.map(relay => NwcTestClient.connect(uri, relay.url)))
  clients.push(first!, second!)

  const request = first!.buildRequest('pay_invoice', { invoice: await newInvoice(daemon, payee.userToken, 400) })
  const answer = await first!.send(request)
  assert.is(answer.error, null)
  const balance = await balanceOf(daemon, payer.appToken, 'redelivery-payer')
  const sentAt = first!.responses.find(r => r.requestId === request.id)!.createdAt

  // The same signed event, published to the second relay only now: it reaches the daemon live.
  await second!.send(request).catch(() => undefined)
  const again = () => second!.responses.filter(r => r.requestId === request.id && r.createdAt > sentAt)
  const started = Date.now()
  while (again().length === 0 && Date.now() - started < 10_000) await new Promise(r => setTimeout(r, 50))
  assert.ok(again().length > 0, 'no answer to the request published again')
  assert.equal(again()[0]!.response, answer)
  assert.is(await balanceOf(daemon, payer.appToken, 'redelivery-payer'), balance, 'paid once')
})

test.run()
