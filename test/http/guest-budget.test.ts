// The per-address budget of unauthenticated routes ([http] guest_requests_per_minute, guest_burst): past the burst a
// stranger gets 429 with Retry-After at once, before its body is read; /api/health and authenticated routes are not
// counted, and other addresses are not affected (here: the same address after the refill).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

const test = suite('guest request budget')
let daemon: TestDaemon

test.before(async () => {
  daemon = await startDaemon({ config: '[http]\nguest_requests_per_minute = 60\nguest_burst = 5\n' })
})
test.after(async () => {
  await daemon?.stop()
})

const exchange = () => daemon.request('POST', '/api/encryption/exchange', { body: { publicKey: 'x', deviceId: 'y' } })

test('past the burst a guest route answers 429 with Retry-After; health and the operator are not counted', async () => {
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) statuses.push((await exchange()).status)
  assert.equal(statuses, [200, 200, 200, 200, 200])
  const refused = await exchange()
  assert.is(refused.status, 429)
  assert.match(refused.text, /too many requests: unauthenticated requests from this address; try again in \d+ s/)
  assert.ok(Number(refused.headers.get('retry-after')) >= 1, refused.headers.get('retry-after') ?? 'no Retry-After')
  for (let i = 0; i < 20; i++) assert.is((await daemon.request('GET', '/api/health')).status, 200)
  const admin = await daemon.request('POST', '/api/admin/app/add', { body: { name: 'budget-app', allow_user_creation: false }, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.is(admin.json.status, 'OK', admin.text)
  // 60 a minute refills one a second.
  await new Promise(resolve => setTimeout(resolve, 1100))
  assert.is((await exchange()).status, 200)
})

test.run()
