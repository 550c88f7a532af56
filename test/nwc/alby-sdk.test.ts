// Nostr Wallet Connect with the ecosystem's reference client: @getalby/sdk's NWCClient, unmodified,
// against the real daemon on its embedded relay. Connections are made over HTTP as a user; money is checked the
// way an app reads it (GetAppUser) and by `relaypay audit` after every test.
import { WebSocket } from 'ws'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, newInvoice, ok, payFromOutside } from '../support/money.js'

// The SDK bundles its own nostr-tools, whose pool captures globalThis.WebSocket when the module is evaluated
// (Node 20 has none), so the global is set first and the SDK loaded afterwards, not through a static import.
;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { NWCClient, Nip47WalletError } = await import('@getalby/sdk/nwc')
type NWCClient = InstanceType<typeof NWCClient>

const jwtSecret = 'alby-sdk-test-secret-0123456789abcdef'
const test = suite('NWC with the @getalby/sdk client')
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string; userId: string; identifier: string }
const clients: NWCClient[] = []

const createConnection = async (userToken: string, body: object = {}) =>
  ok(daemon, '/api/user/nwc/create', userToken, { name: 'alby sdk', ...body })

const connect = (uri: string): NWCClient => {
  const client = new NWCClient({ nostrWalletConnectUrl: uri })
  clients.push(client)
  return client
}

const payerBalance = () => balanceOf(daemon, payer.appToken, 'alby-payer')
const payeeBalance = () => balanceOf(daemon, payer.appToken, 'alby-payee')

/** The wallet error the SDK raised, or a failure when the call succeeded or failed otherwise. */
const walletError = async (call: Promise<unknown>): Promise<InstanceType<typeof Nip47WalletError>> => {
  let error: unknown
  try {
    const result = await call
    assert.unreachable(`expected a wallet error, got ${JSON.stringify(result)}`)
  } catch (caught) {
    error = caught
  }
  assert.instance(error, Nip47WalletError, String(error))
  return error as InstanceType<typeof Nip47WalletError>
}

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'alby-payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'alby-payee' })
  // Funded the way money really arrives: an invoice of the payer paid over Lightning (the mock node in test mode).
  await payFromOutside(daemon, await newInvoice(daemon, payer.userToken, 20_000))
  assert.is(await payerBalance(), 20_000)
})
test.after(async () => {
  for (const client of clients) client.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

test('get_info, the info event and get_balance (msat) through the SDK', async () => {
  const client = connect((await createConnection(payer.userToken)).connection_uri)
  const service = await client.getWalletServiceInfo()
  assert.ok(service.encryptions.includes('nip44_v2'), JSON.stringify(service))
  for (const method of ['pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions', 'get_balance', 'get_info', 'notifications'] as const) {
    assert.ok(service.capabilities.includes(method), method)
  }
  const info = await client.getInfo()
  assert.is(info.network, 'regtest')
  assert.match(info.pubkey, /^[0-9a-f]{66}$/)
  assert.ok(info.methods.includes('pay_invoice'))
  assert.equal(await client.getBalance(), { balance: 20_000_000 })
  assert.is(client.encryptionType, 'nip44_v2') // the SDK chose NIP-44 from our info event
})

test('make_invoice and lookup_invoice: an invoice of the wallet, settled once paid from outside', async () => {
  const client = connect((await createConnection(payee.userToken)).connection_uri)
  const before = await payeeBalance()
  const made = await client.makeInvoice({ amount: 21_000, description: 'coffee' })
  assert.is(made.type, 'incoming')
  assert.is(made.state, 'pending')
  assert.is(made.amount, 21_000)
  assert.is(made.description, 'coffee')
  assert.match(made.invoice, /^lnbcrt/)
  assert.equal(await client.lookupInvoice({ payment_hash: made.payment_hash }), made)
  assert.equal(await client.lookupInvoice({ invoice: made.invoice }), made)

  await payFromOutside(daemon, made.invoice)
  const settled = await client.lookupInvoice({ payment_hash: made.payment_hash })
  assert.is(settled.state, 'settled')
  assert.ok(settled.settled_at > 0)
  assert.is(await payeeBalance(), before + 21)
})

test('a payment_received notification reaches an SDK subscriber', async () => {
  const client = connect((await createConnection(payee.userToken)).connection_uri)
  const received: { kind: string; amount: number; payment_hash: string }[] = []
  const unsubscribe = await client.subscribeNotifications(n => received.push({ kind: n.notification_type, ...n.notification }), ['payment_received'])
  try {
    const made = await client.makeInvoice({ amount: 5_000, description: 'notify me' })
    await payFromOutside(daemon, made.invoice)
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise(resolve => setTimeout(resolve, 50))
    assert.is(received.length, 1, 'one notification')
    assert.equal([received[0]!.kind, received[0]!.amount, received[0]!.payment_hash], ['payment_received', 5_000, made.payment_hash])
  } finally {
    unsubscribe()
  }
})

test('pay_invoice of another user (internal), lookup_invoice and list_transactions; balances move', async () => {
  const client = connect((await createConnection(payer.userToken)).connection_uri)
  const payerBefore = await payerBalance()
  const payeeBefore = await payeeBalance()
  const invoice = await newInvoice(daemon, payee.userToken, 1000)
  const paid = await client.payInvoice({ invoice })
  assert.is(paid.fees_paid, 10_000) // the service fee floor (10 sats), as PayInvoice charges
  // An internal payment has no preimage in the wallet (empty, as upstream); the SDK accepts that.
  assert.is(typeof paid.preimage, 'string')
  assert.is(await payerBalance(), payerBefore - 1010)
  assert.is(await payeeBalance(), payeeBefore + 1000)
  assert.equal(await client.getBalance(), { balance: (payerBefore - 1010) * 1000 })

  const looked = await client.lookupInvoice({ invoice })
  assert.is(looked.type, 'outgoing')
  assert.is(looked.state, 'settled')
  assert.is(looked.amount, 1_000_000)
  assert.is(looked.fees_paid, 10_000)

  const listed = await client.listTransactions({ limit: 10 })
  assert.is(listed.transactions[0]?.payment_hash, looked.payment_hash) // newest first
  const incoming = await client.listTransactions({ type: 'incoming' })
  assert.ok(incoming.transactions.length >= 1) // the funding invoice
  assert.ok(incoming.transactions.every(t => t.type === 'incoming'))
  assert.not.ok(incoming.transactions.some(t => t.payment_hash === looked.payment_hash))

  // The payee sees the same payment as incoming and settled.
  const payeeClient = connect((await createConnection(payee.userToken)).connection_uri)
  const received = await payeeClient.lookupInvoice({ invoice })
  assert.is(received.type, 'incoming')
  assert.is(received.state, 'settled')
})

test('a payment beyond the budget raises QUOTA_EXCEEDED and moves nothing', async () => {
  const client = connect((await createConnection(payer.userToken, { budget: { amount_sats: 1500, interval: 'DAY' } })).connection_uri)
  await client.payInvoice({ invoice: await newInvoice(daemon, payee.userToken, 1000) })
  const payerBefore = await payerBalance()
  const payeeBefore = await payeeBalance()
  const refused = await walletError(client.payInvoice({ invoice: await newInvoice(daemon, payee.userToken, 1000) }))
  assert.is(refused.code, 'QUOTA_EXCEEDED')
  assert.is(await payerBalance(), payerBefore)
  assert.is(await payeeBalance(), payeeBefore)
})

test('a revoked connection raises UNAUTHORIZED', async () => {
  const created = await createConnection(payer.userToken)
  const client = connect(created.connection_uri)
  assert.is((await client.getBalance()).balance, (await payerBalance()) * 1000)
  await ok(daemon, '/api/user/nwc/revoke', payer.userToken, { connection_id: created.connection.connection_id })
  const refused = await walletError(client.getBalance())
  assert.is(refused.code, 'UNAUTHORIZED')
  const before = await payerBalance()
  assert.is((await walletError(client.payInvoice({ invoice: await newInvoice(daemon, payee.userToken, 10) }))).code, 'UNAUTHORIZED')
  assert.is(await payerBalance(), before)
})

test.run()
