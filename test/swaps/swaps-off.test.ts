// Swaps are off by default and every swap operation says so, with how to turn them on; on the embedded node
// (no real chain) they are refused with the reason even when enabled; enabling them without a provider is a
// configuration error at start.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { configSchema } from '../../src/config/index.js'
import { call } from '../wallet/money.js'
import { outsideAddress } from './swap-harness.js'

const jwtSecret = 'swaps-off-secret-0123456789abcdefghijkl'
const s = suite('swaps switched off')
let daemon: TestDaemon
let user: TestAppUser

const adminOps: [string, object][] = [
  ['/api/admin/swap/transaction/quote', { transaction_amount_sats: 10_000 }],
  ['/api/admin/swap/transaction/pay', { address: 'x', swap_operation_id: 'y' }],
  ['/api/admin/swap/transaction/list', {}],
  ['/api/admin/swap/invoice/quote', { amount_sats: 10_000 }],
  ['/api/admin/swap/invoice/list', {}],
  ['/api/admin/swap/invoice/pay', { swap_operation_id: 'y' }],
  ['/api/admin/swap/invoice/refund', { swap_operation_id: 'y', sat_per_v_byte: 2 }],
]

s.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  user = await createAppWithUser(daemon, { jwtSecret })
})
s.after(async () => {
  await daemon?.stop()
})

s('every swap operation answers that swaps are disabled and how to enable them', async () => {
  for (const [path, body] of adminOps) {
    const reply = await call(daemon, path, daemon.adminToken, body)
    assert.is(reply.status, 'ERROR', path)
    assert.match(reply.reason, /swaps are disabled on this server.*\[swaps\] enabled = true/, path)
  }
  const userToken = `Bearer ${user.userToken}`
  for (const [path, body] of [
    ['/api/user/swap/transaction/quote', { transaction_amount_sats: 10_000 }],
    ['/api/user/swap/transaction/list', {}],
    ['/api/user/chain/pay', { address: outsideAddress(), amountSats: 10_000, satsPerVByte: 0, swap_operation_id: 'abc' }],
  ] as const) {
    const reply = await call(daemon, path, userToken, body)
    assert.match(reply.reason, /swaps are disabled on this server/, path)
  }
  const summary = daemon.logs().split('\n').find(line => line.includes('"missing"'))
  assert.ok(summary, 'the daemon logs which operations are not implemented')
  const missing: string[] = JSON.parse(summary!).missing
  assert.not.ok(missing.some(op => /Swap/.test(op)), `no swap operation is left unimplemented: ${missing}`)
})

s('enabled on the embedded node, swaps are refused: they need LND', async () => {
  const embedded = await startDaemon({ config: '[swaps]\nenabled = true\nproviders = [{ http = "http://127.0.0.1:9" }]\n' })
  try {
    const reply = await call(embedded, '/api/admin/swap/invoice/list', embedded.adminToken, {})
    assert.match(reply.reason, /swaps need an LND node/)
  } finally {
    await embedded.stop()
  }
})

s('enabling swaps without a provider is a configuration error', () => {
  const parsed = configSchema.safeParse({ swaps: { enabled: true } })
  assert.not.ok(parsed.success)
  assert.match(parsed.error!.issues[0]!.message, /no provider is configured/)
  assert.equal(configSchema.parse({}).swaps, {
    enabled: false,
    providers: [],
    timeout_ms: 10_000,
    block_poll_seconds: 30,
    pay_wait_seconds: 60,
  })
})

s.run()
