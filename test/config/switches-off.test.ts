// Features the operator can switch off answer a write with an error that names the switch, so whoever reads the
// answer learns which key turns it on. The other switches are tested beside their features: swaps
// (swaps/swaps-off: the lists answer empty), LNURL (lnurl/pay), mock mode (security/mock-switch), the HTTP upgrade
// (transports/nostr/rpc), balance migration (wallet/balance-migration), metrics reset (metrics/http), the models
// engine (models/http: the list answers, a download is refused).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { ok } from '../support/money.js'

const jwtSecret = 'switches-off-secret-0123456789abcdefghij'
const s = suite('switched-off features name their switch')
let daemon: TestDaemon
let user: TestAppUser

s.before(async () => {
  // [rates] providers is left at its default: none, so no public rate API is ever asked.
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}[webrtc]\nenabled = false\n` })
  user = await createAppWithUser(daemon, { jwtSecret })
})
s.after(async () => {
  await daemon?.stop()
})

s('an invoice priced in a fiat currency names [rates] providers while none is configured', async () => {
  const keys = await ok(daemon, '/api/user/wallet/keys', `Bearer ${user.userToken}`)
  const res = await daemon.request('POST', '/api/v1/payments', {
    body: { out: false, amount: '5', unit: 'USD', memo: 'in dollars' },
    headers: { 'x-api-key': keys.invoice_key },
  })
  assert.is(res.status, 400, res.text)
  assert.equal(res.json, { detail: 'no BTC rate for USD: no rate provider is configured; the operator names them in [rates] providers' })
  // The same wallet still makes invoices in sats.
  const sats = await daemon.request('POST', '/api/v1/payments', { body: { out: false, amount: 5 }, headers: { 'x-api-key': keys.invoice_key } })
  assert.is(sats.status, 201, sats.text)
})

s('a WebRTC offer names [webrtc] enabled while the upgrade is off', async () => {
  const res = await daemon.request('POST', '/api/upgrade/wrtc', {
    body: { message: { type: 'offer', offer: 'v=0' } },
    headers: { authorization: daemon.adminToken },
  })
  assert.equal(res.json, { status: 'ERROR', reason: 'the WebRTC upgrade is disabled ([webrtc] enabled = false)' })
})

s.run()
