// Swaps are off by default: the three lists answer empty, as Lightning.Pub does, and every other swap operation
// says swaps are off and how to turn them on, over HTTP and over the relay; on the embedded node (no real chain)
// the same, with the reason, even when enabled; enabling them without a provider is a configuration error at start.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { configSchema } from '../../src/config/index.js'
import { call } from '../support/money.js'
import { outsideAddress } from './swap-harness.js'
import { appProfile, PubClient } from '../support/pub-client.js'

const jwtSecret = 'swaps-off-secret-0123456789abcdefghijkl'
const s = suite('swaps switched off')
let daemon: TestDaemon
let user: TestAppUser

const adminWrites: [string, object][] = [
  ['/api/admin/swap/transaction/quote', { transaction_amount_sats: 10_000 }],
  ['/api/admin/swap/transaction/pay', { address: 'x', swap_operation_id: 'y' }],
  ['/api/admin/swap/invoice/quote', { amount_sats: 10_000 }],
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

s('the swap lists answer empty over HTTP', async () => {
  assert.equal(await call(daemon, '/api/user/swap/transaction/list', `Bearer ${user.userToken}`, {}), { status: 'OK', swaps: [] })
  assert.equal(await call(daemon, '/api/admin/swap/transaction/list', daemon.adminToken, {}), { status: 'OK', swaps: [] })
  const { current_block_height, ...invoiceSwaps } = await call(daemon, '/api/admin/swap/invoice/list', daemon.adminToken, {})
  assert.equal(invoiceSwaps, { status: 'OK', swaps: [] })
  assert.ok(Number.isSafeInteger(current_block_height) && current_block_height > 0, 'the node’s height')
})

s('every other swap operation answers that swaps are disabled and how to enable them', async () => {
  for (const [path, body] of adminWrites) {
    const reply = await call(daemon, path, daemon.adminToken, body)
    assert.is(reply.status, 'ERROR', path)
    assert.match(reply.reason, /swaps are disabled on this server.*\[swaps\] enabled = true/, path)
  }
  const userToken = `Bearer ${user.userToken}`
  for (const [path, body] of [
    ['/api/user/swap/transaction/quote', { transaction_amount_sats: 10_000 }],
    ['/api/user/chain/pay', { address: outsideAddress(), amountSats: 10_000, satsPerVByte: 0, swap_operation_id: 'abc' }],
  ] as const) {
    const reply = await call(daemon, path, userToken, body)
    assert.match(reply.reason, /swaps are disabled on this server.*\[swaps\] enabled = true/, path)
  }
  // With swaps off their handlers are still registered (the daemon refuses to start with any operation missing).
  assert.ok(daemon.logs().includes('operations registered'), 'the daemon started with every operation registered')
})

s('over the relay (kind 21000): ListTxSwaps answers empty, a quote names the switch', async () => {
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays, appPubkey: pubkey })
  try {
    const list = await client.call('ListTxSwaps')
    assert.equal(list, { status: 'OK', swaps: [], requestId: list.requestId })
    const quote = await client.call('GetTransactionSwapQuotes', { transaction_amount_sats: 10_000 })
    assert.is(quote.status, 'ERROR')
    assert.match(quote.reason, /swaps are disabled on this server.*\[swaps\] enabled = true/)
  } finally {
    client.close()
  }
})

s('enabled on the embedded node, swaps are refused (they need LND) and the lists answer empty', async () => {
  const embedded = await startDaemon({ config: '[swaps]\nenabled = true\nproviders = [{ http = "http://127.0.0.1:9" }]\n' })
  try {
    const reply = await call(embedded, '/api/admin/swap/invoice/quote', embedded.adminToken, { amount_sats: 10_000 })
    assert.match(reply.reason, /swaps need an LND node/)
    const list = await call(embedded, '/api/admin/swap/invoice/list', embedded.adminToken, {})
    assert.equal([list.status, list.swaps], ['OK', []])
    assert.ok(Number.isSafeInteger(list.current_block_height))
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
