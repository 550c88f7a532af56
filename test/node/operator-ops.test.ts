// The operator's node operations over HTTP against the real daemon and its embedded node: info and seed, peers,
// the life of a channel, policies, fee bumps, assets and liabilities, the console's node page, and the node-only
// invoice operations.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { SignJWT } from 'jose'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { outsideInvoice, randomNodePubkey } from '../support/outside-invoice.js'

const jwtSecret = 'operator-ops-test-secret-0123456789abcdef'
const txidPattern = /^[0-9a-f]{64}$/

async function call(daemon: TestDaemon, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await daemon.request(method, path, {
    ...(body !== undefined ? { body } : {}),
    headers: headers ?? { authorization: daemon.adminToken },
  })
  assert.is(res.status, 200, `${method} ${path}: HTTP ${res.status} ${res.text}`)
  return res.json
}

async function ok(daemon: TestDaemon, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const json = await call(daemon, method, path, body, headers)
  assert.is(json.status, 'OK', `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(json)}`)
  return json
}

async function refused(daemon: TestDaemon, path: string, body: unknown, reason: RegExp, headers?: Record<string, string>) {
  const json = await call(daemon, 'POST', path, body, headers)
  assert.is(json.status, 'ERROR', `${path} ${JSON.stringify(body)} should fail: ${JSON.stringify(json)}`)
  assert.match(json.reason, reason, `${path} ${JSON.stringify(body)}`)
}

const listChannels = async (daemon: TestDaemon) => (await ok(daemon, 'GET', '/api/admin/channels')).open_channels as any[]

// The embedded node's simulated chain makes one block per ten minutes since the genesis block, and a transaction
// confirms with the next block. A fee bump needs an unconfirmed transaction, so a test that makes one and bumps it
// first waits out a block boundary that is about to pass.
const genesisMs = 1_231_006_505_000
const blockMs = 600_000
async function awayFromBlockBoundary() {
  const untilNextBlock = blockMs - ((Date.now() - genesisMs) % blockMs)
  if (untilNextBlock < 15_000) await new Promise(resolve => setTimeout(resolve, untilNextBlock + 200))
}

// ---------------------------------------------------------------------------------------------------------------

const info = suite('node info and seed')

info('NodeGetInfo answers on its path and on the LndGetInfo alias, ignoring nodeId', async () => {
  const daemon = await startDaemon({ config: '[node]\nalias = "corner-shop"\n' })
  try {
    for (const path of ['/api/admin/node/getinfo', '/api/admin/lnd/getinfo']) {
      const json = await ok(daemon, 'POST', path, { nodeId: 7 })
      assert.equal(
        { alias: json.alias, synced_to_chain: json.synced_to_chain, synced_to_graph: json.synced_to_graph, watchdog_barking: json.watchdog_barking },
        { alias: 'corner-shop', synced_to_chain: true, synced_to_graph: true, watchdog_barking: false },
        path,
      )
    }
    const stranger = await call(daemon, 'POST', '/api/admin/node/getinfo', { nodeId: 0 }, { authorization: 'not-the-token' })
    assert.is(stranger.status, 'ERROR')
  } finally {
    await daemon.stop()
  }
})

info('GetSeed gives 24 words that stay the same across a restart', async () => {
  const first = await startDaemon()
  const before = await ok(first, 'GET', '/api/admin/seed')
  await first.stop()
  assert.is(before.seed.length, 24)
  for (const word of before.seed) assert.match(word, /^[a-z]+$/)

  const second = await startDaemon({ dataDir: first.dataDir })
  try {
    const after = await ok(second, 'GET', '/api/admin/seed')
    assert.equal(after.seed, before.seed)
  } finally {
    await second.stop()
  }

  const other = await startDaemon()
  try {
    assert.not.equal((await ok(other, 'GET', '/api/admin/seed')).seed, before.seed, 'another node has another seed')
  } finally {
    await other.stop()
  }
})

info.run()

// ---------------------------------------------------------------------------------------------------------------

const channels = suite('peers and channels')
let daemon: TestDaemon

channels.before(async () => {
  daemon = await startDaemon({ config: `[auth]\njwt_secret = "${jwtSecret}"\n` })
})
channels.after(async () => {
  await daemon.stop()
})

const defaultPolicy = { base_fee_msat: 1000, fee_rate_ppm: 1, min_htlc_msat: 1000, timelock_delta: 80 }

channels('AddPeer, OpenChannel, ListChannels, UpdateChannelPolicy (one and all), CloseChannel', async () => {
  assert.equal(await listChannels(daemon), [])
  const walletBefore = (await ok(daemon, 'POST', '/api/admin/assets/liabilities', {})).lnds[0].tracked.confirmed_balance

  const peer = randomNodePubkey()
  await ok(daemon, 'POST', '/api/admin/peer', { pubkey: peer, host: '127.0.0.1', port: 9735 })
  const first = await ok(daemon, 'POST', '/api/admin/channel/open', {
    node_pubkey: peer, local_funding_amount: 250_000, sat_per_v_byte: 3, push_sat: 10_000,
  })
  assert.match(first.channel_id, txidPattern, 'the pending channel id in hex')
  const second = await ok(daemon, 'POST', '/api/admin/channel/open', {
    node_pubkey: peer, local_funding_amount: 300_000, sat_per_v_byte: 0, close_address: '',
  })
  assert.not.equal(second.channel_id, first.channel_id)

  let open = await listChannels(daemon)
  assert.is(open.length, 2)
  const a = open.find(c => c.capacity === 250_000)
  const b = open.find(c => c.capacity === 300_000)
  assert.ok(a && b, JSON.stringify(open))
  assert.match(a.channel_point, /^[0-9a-f]{64}:\d+$/)
  assert.match(a.channel_id, /^\d+$/, 'short channel id as a decimal uint64')
  assert.equal(
    { local: a.local_balance, remote: a.remote_balance, active: a.active, inactive: a.inactive_since_unix, label: a.label },
    { local: 240_000, remote: 10_000, active: true, inactive: 0, label: '' },
  )
  assert.ok(a.lifetime >= 0 && a.lifetime < 60, `lifetime ${a.lifetime}`)
  assert.equal({ ...a.policy, max_htlc_msat: undefined }, { ...defaultPolicy, max_htlc_msat: undefined })
  assert.ok(a.policy.max_htlc_msat > 0 && a.policy.max_htlc_msat <= 250_000_000, 'max HTLC within the capacity')

  const assets = (await ok(daemon, 'POST', '/api/admin/assets/liabilities', {})).lnds[0].tracked
  assert.is(assets.channels_balance, 240_000 + 300_000, 'our side of both channels')
  assert.ok(walletBefore - assets.confirmed_balance >= 550_000, `funding left the wallet: ${walletBefore} → ${assets.confirmed_balance}`)

  // One channel by its channel point: only that one changes.
  const onePolicy = { base_fee_msat: 2500, fee_rate_ppm: 350, max_htlc_msat: 100_000_000, min_htlc_msat: 2000, timelock_delta: 40 }
  await ok(daemon, 'POST', '/api/admin/channel/policy/update', {
    update: { type: 'channel_point', channel_point: a.channel_point }, policy: onePolicy,
  })
  open = await listChannels(daemon)
  assert.equal(open.find(c => c.channel_point === a.channel_point).policy, onePolicy)
  assert.equal(open.find(c => c.channel_point === b.channel_point).policy, b.policy, 'the other channel keeps its policy')

  // Every channel at once.
  const allPolicy = { base_fee_msat: 0, fee_rate_ppm: 10, max_htlc_msat: 200_000_000, min_htlc_msat: 1, timelock_delta: 144 }
  await ok(daemon, 'POST', '/api/admin/channel/policy/update', { update: { type: 'all', all: {} }, policy: allPolicy })
  for (const channel of await listChannels(daemon)) assert.equal(channel.policy, allPolicy, channel.channel_point)

  const [txid, index] = a.channel_point.split(':')
  const closed = await ok(daemon, 'POST', '/api/admin/channel/close', {
    funding_txid: txid, output_index: Number(index), force: false, sat_per_v_byte: 5,
  })
  assert.match(closed.closing_txid, txidPattern)
  assert.not.equal(closed.closing_txid, txid)
  open = await listChannels(daemon)
  assert.equal(open.map(c => c.channel_point), [b.channel_point], 'the closed channel is gone')
  await refused(daemon, '/api/admin/channel/close', { funding_txid: txid, output_index: Number(index), force: false, sat_per_v_byte: 0 }, /channel not found/)

  const [txidB, indexB] = b.channel_point.split(':')
  const forced = await ok(daemon, 'POST', '/api/admin/channel/close', {
    funding_txid: txidB.toUpperCase(), output_index: Number(indexB), force: true, sat_per_v_byte: 0,
  })
  assert.match(forced.closing_txid, txidPattern)
  assert.equal(await listChannels(daemon), [])
  assert.is((await ok(daemon, 'POST', '/api/admin/assets/liabilities', {})).lnds[0].tracked.channels_balance, 0)
})

channels("the console's node page: the node's key, its peers, a fresh address of its own, and its liquidity", async () => {
  const admin = { authorization: `Bearer ${daemon.adminToken}` }
  const get = async (path: string, method = 'GET') => {
    const res = await daemon.request(method, path, { headers: admin })
    assert.is(res.status, 200, `${path}: ${res.text}`)
    return res.json
  }
  const before = await get('/api/operator/node')
  const assets = (await ok(daemon, 'POST', '/api/admin/assets/liabilities', {})).lnds[0]
  assert.is(before.pubkey, assets.pubkey)
  assert.match(before.pubkey, /^0[23][0-9a-f]{64}$/)
  assert.equal([before.network, before.synced_to_chain, before.uris], ['regtest', true, []], 'the embedded node listens nowhere')
  assert.is(before.chain_balance_sats, assets.tracked.confirmed_balance)
  assert.ok(before.block_height > 0)

  const peer = randomNodePubkey()
  await ok(daemon, 'POST', '/api/admin/peer', { pubkey: peer, host: '127.0.0.2', port: 9736 })
  const { peers } = await get('/api/operator/node/peers')
  const listed = peers.find((p: { pubkey: string }) => p.pubkey === peer)
  assert.equal({ ...listed, connected_at: undefined }, { pubkey: peer, alias: '', address: '127.0.0.2:9736', inbound: false, connected_at: undefined })
  assert.ok(Math.abs(listed.connected_at - Date.now() / 1000) < 60, 'unix seconds')

  const opened = await ok(daemon, 'POST', '/api/admin/channel/open', { node_pubkey: peer, local_funding_amount: 200_000, sat_per_v_byte: 0, push_sat: 30_000 })
  const after = await get('/api/operator/node')
  assert.is(after.outbound_sats - before.outbound_sats, 170_000, 'our side of the new channel')
  assert.is(after.inbound_sats - before.inbound_sats, 30_000, "the peer's side: what the node can now receive")
  assert.is(after.active_channels, before.active_channels + 1)
  assert.ok(after.peers >= 1)
  const point = (await listChannels(daemon)).find(c => c.capacity === 200_000)!.channel_point.split(':')
  // The operator's list names the peer; the embedded node has no graph, so no alias, and no CSV delay to tell.
  const listedChannel = (await get('/api/operator/node/channels')).channels.find((c: { capacity_sats: number }) => c.capacity_sats === 200_000)
  assert.equal({ ...listedChannel, channel_id: undefined }, {
    channel_id: undefined, channel_point: point.join(':'), peer_pubkey: peer, peer_alias: '', capacity_sats: 200_000,
    local_balance_sats: 170_000, remote_balance_sats: 30_000, active: true, private: false, label: '', force_close_delay_blocks: 0,
  })
  await ok(daemon, 'POST', '/api/admin/channel/close', { funding_txid: point[0], output_index: Number(point[1]), force: false, sat_per_v_byte: 0 })
  assert.ok(opened.channel_id)

  const first = (await get('/api/operator/node/address', 'POST')).address
  const second = (await get('/api/operator/node/address', 'POST')).address
  assert.match(first, /^bcrt1q[02-9ac-hj-np-z]{38}$/, 'a regtest P2WPKH address')
  assert.is.not(first, second, 'a fresh one each time')
  for (const path of ['/api/operator/node', '/api/operator/node/peers', '/api/operator/node/channels']) {
    assert.is((await daemon.request('GET', path)).status, 401, `${path} is the operator's only`)
  }
  assert.is((await daemon.request('POST', '/api/operator/node/address')).status, 401)
})

channels('OpenChannel refuses a peer the node is not connected to', async () => {
  await refused(daemon, '/api/admin/channel/open', {
    node_pubkey: randomNodePubkey(), local_funding_amount: 100_000, sat_per_v_byte: 0,
  }, /not online/)
})

channels('BumpTx raises the fee of an unconfirmed transaction and refuses a zero rate', async () => {
  await awayFromBlockBoundary()
  const peer = randomNodePubkey()
  await ok(daemon, 'POST', '/api/admin/peer', { pubkey: peer, host: 'peer.example', port: 9735 })
  await ok(daemon, 'POST', '/api/admin/channel/open', { node_pubkey: peer, local_funding_amount: 100_000, sat_per_v_byte: 1 })
  const channel = (await listChannels(daemon)).find(c => c.capacity === 100_000)
  const [txid, index] = channel.channel_point.split(':')

  await ok(daemon, 'POST', '/api/admin/tx/bump', { txid, output_index: Number(index), sat_per_vbyte: 12 })
  await refused(daemon, '/api/admin/tx/bump', { txid, output_index: Number(index), sat_per_vbyte: 0 }, /sat_per_vbyte must be greater than 0/)
  await refused(daemon, '/api/admin/tx/bump', { txid, output_index: Number(index), sat_per_vbyte: -3 }, /sat_per_vbyte must be greater than 0/)
  await refused(daemon, '/api/admin/tx/bump', { txid: 'ab'.repeat(32), output_index: 0, sat_per_vbyte: 5 }, /does not belong to the wallet/)
  await refused(daemon, '/api/admin/tx/bump', { txid: 'not-a-txid', output_index: 0, sat_per_vbyte: 5 }, /txid must be a 64-character hex txid/)
  await refused(daemon, '/api/admin/tx/bump', { txid, output_index: -1, sat_per_vbyte: 5 }, /output_index must not be negative/)
})

channels('bad inputs are refused with a reason that names the problem', async () => {
  const peer = randomNodePubkey()
  await ok(daemon, 'POST', '/api/admin/peer', { pubkey: peer, host: '127.0.0.1', port: 9736 })
  const open = (body: object) => ({ node_pubkey: peer, local_funding_amount: 100_000, sat_per_v_byte: 0, ...body })
  const policy = { base_fee_msat: 1000, fee_rate_ppm: 1, max_htlc_msat: 1_000_000, min_htlc_msat: 1000, timelock_delta: 40 }
  const cases: [string, unknown, RegExp][] = [
    ['/api/admin/peer', { pubkey: 'abc', host: '127.0.0.1', port: 9735 }, /pubkey must be a 33-byte compressed public key/],
    ['/api/admin/peer', { pubkey: peer, host: ' ', port: 9735 }, /host must not be empty/],
    ['/api/admin/peer', { pubkey: peer, host: '127.0.0.1', port: 0 }, /port must be between 1 and 65535/],
    ['/api/admin/channel/open', open({ local_funding_amount: -5 }), /local_funding_amount must be greater than 0/],
    ['/api/admin/channel/open', open({ local_funding_amount: 0 }), /local_funding_amount must be greater than 0/],
    ['/api/admin/channel/open', open({ sat_per_v_byte: -1 }), /sat_per_v_byte must not be negative/],
    ['/api/admin/channel/open', open({ push_sat: -10 }), /push_sat must not be negative/],
    ['/api/admin/channel/open', open({ push_sat: 100_000 }), /push_sat must be below local_funding_amount/],
    ['/api/admin/channel/open', open({ node_pubkey: 'zz' }), /node_pubkey must be a 33-byte compressed public key/],
    ['/api/admin/channel/open', open({ local_funding_amount: 1000 }), /channel is too small/],
    ['/api/admin/channel/open', open({ close_address: 'not-an-address' }), /invalid address/],
    ['/api/admin/channel/open', open({ local_funding_amount: 1, nonsense: true, sat_per_v_byte: 'fast' }), /sat_per_v_byte/],
    ['/api/admin/channel/policy/update', { update: { type: 'channel_point', channel_point: 'nothex:0' }, policy }, /channel_point must look like <funding txid>:<output index>/],
    ['/api/admin/channel/policy/update', { update: { type: 'channel_point', channel_point: 'ab'.repeat(32) }, policy }, /channel_point must look like/],
    ['/api/admin/channel/policy/update', { update: { type: 'channel_point', channel_point: `${'ab'.repeat(32)}:0` }, policy }, /channel not found/],
    ['/api/admin/channel/policy/update', { update: { type: 'all', all: {} }, policy: { ...policy, base_fee_msat: -1 } }, /base_fee_msat must not be negative/],
    ['/api/admin/channel/policy/update', { update: { type: 'all', all: {} }, policy: { ...policy, min_htlc_msat: 2_000_000 } }, /min_htlc_msat must not exceed max_htlc_msat/],
    ['/api/admin/channel/policy/update', { update: { type: 'everything' }, policy }, /update/],
    ['/api/admin/channel/close', { funding_txid: '', output_index: 0, force: false, sat_per_v_byte: 0 }, /funding_txid must be a 64-character hex txid/],
    ['/api/admin/channel/close', { funding_txid: 'ab'.repeat(32), output_index: -1, force: false, sat_per_v_byte: 0 }, /output_index must not be negative/],
    ['/api/admin/channel/close', { funding_txid: 'ab'.repeat(32), output_index: 0, force: false, sat_per_v_byte: -2 }, /sat_per_v_byte must not be negative/],
    ['/api/admin/channel/close', { funding_txid: 'ab'.repeat(32), output_index: 0, force: true, sat_per_v_byte: 4 }, /force close uses the fee fixed in advance/],
    ['/api/admin/assets/liabilities', { limit_invoices: -1 }, /limit_invoices must not be negative/],
  ]
  // Lifetime ticks on; everything else about the channels must stay as it was.
  const channelState = async () => (await listChannels(daemon)).map(({ lifetime: _lifetime, ...rest }) => rest)
  const before = await channelState()
  for (const [path, body, reason] of cases) await refused(daemon, path, body, reason)
  assert.equal(await channelState(), before, 'no refused request changed a channel')
})

channels('GetAssetsAndLiabilities has the upstream shape', async () => {
  const json = await ok(daemon, 'POST', '/api/admin/assets/liabilities', { limit_invoices: 5, limit_payments: 0 })
  const info = await ok(daemon, 'POST', '/api/admin/node/getinfo', { nodeId: 0 })
  assert.is(json.users_balance, 0, 'no user holds a balance yet')
  assert.equal(json.liquidity_providers, [])
  assert.is(json.lnds.length, 1)
  const [lnd] = json.lnds
  assert.match(lnd.pubkey, /^0[23][0-9a-f]{64}$/)
  assert.ok(info.alias, 'sanity')
  const tracked = lnd.tracked
  for (const field of ['confirmed_balance', 'unconfirmed_balance', 'channels_balance']) {
    assert.ok(Number.isSafeInteger(tracked[field]) && tracked[field] >= 0, `${field}: ${tracked[field]}`)
  }
  assert.ok(tracked.confirmed_balance > 0, 'the embedded wallet starts funded')
  const channelSats = (await listChannels(daemon)).reduce((sum, c) => sum + c.local_balance, 0)
  assert.is(tracked.channels_balance, channelSats)
  // Nothing paid or received over Lightning yet; the chain holds the embedded wallet's first funding, long confirmed
  // (and the channels of the tests above once the simulated chain has passed a block since).
  for (const list of ['payments', 'invoices']) assert.equal(tracked[list], [], list)
  assert.equal(tracked.incoming_tx.at(-1)?.amount, 100_000_000, 'the oldest: the first funding')
  for (const list of ['payments', 'invoices', 'incoming_tx', 'outgoing_tx']) {
    for (const op of tracked[list]) assert.equal(Object.keys(op).sort(), ['amount', 'ts'], `${list}: an untracked AssetOperation`)
  }
})

// ---------------------------------------------------------------------------------------------------------------

channels('DecodeInvoice gives the amount in sats of any invoice on the node network, for a user', async () => {
  const admin = { authorization: daemon.adminToken }
  const added = await ok(daemon, 'POST', '/api/admin/app/add', { name: 'decoder-app', allow_user_creation: false }, admin)
  const user = await ok(daemon, 'POST', '/api/app/user/add', { identifier: 'decoder', fail_if_exists: true, balance: 0 }, { authorization: added.auth_token })
  // The test plays an integrator that shares the JWT secret and issues a user token itself.
  const token = await new SignJWT({ user_id: user.info.userId, app_id: added.app.id, app_user_id: 'decoder' })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(jwtSecret))
  const asUser = { authorization: `Bearer ${token}` }

  const priced = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 2_500_999 })
  assert.equal((await ok(daemon, 'POST', '/api/user/invoice/decode', { invoice: priced.paymentRequest }, asUser)).amount, 2500)
  const open = outsideInvoice({ network: 'regtest', nowMs: Date.now() })
  assert.equal((await ok(daemon, 'POST', '/api/user/invoice/decode', { invoice: open.paymentRequest }, asUser)).amount, 0)

  const mainnet = outsideInvoice({ network: 'mainnet', nowMs: Date.now(), amountMsat: 1000 })
  await refused(daemon, '/api/user/invoice/decode', { invoice: mainnet.paymentRequest }, /invoice not for current active network 'regtest'/, asUser)
  await refused(daemon, '/api/user/invoice/decode', { invoice: 'lnbcrt1garbage' }, /invalid payment request/, asUser)
  await refused(daemon, '/api/user/invoice/decode', { invoice: priced.paymentRequest }, /.+/, admin)
})

channels('SetMockInvoiceAsPaid (test mode on) checks the amount rules and refuses invoices the node did not make', async () => {
  const path = '/api/node/mock/invoice/paid'
  const priced = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 50_000 })
  const open = outsideInvoice({ network: 'regtest', nowMs: Date.now() })
  await refused(daemon, path, { invoice: priced.paymentRequest, amount: 50 }, /amount must be 0: the invoice already carries an amount/, {})
  await refused(daemon, path, { invoice: open.paymentRequest, amount: 0 }, /amount is required: the invoice does not carry an amount/, {})
  await refused(daemon, path, { invoice: open.paymentRequest, amount: -5 }, /amount must not be negative/, {})
  await refused(daemon, path, { invoice: priced.paymentRequest, amount: 0 }, /invoice not found: this node did not issue it/, {})
  await refused(daemon, '/api/lnd/mock/invoice/paid', { invoice: open.paymentRequest, amount: 10 }, /invoice not found/, {})
  await refused(daemon, path, { invoice: 'lnbcrt1garbage', amount: 0 }, /invalid payment request/, {})
})

channels.run()

// ---------------------------------------------------------------------------------------------------------------

const mockOff = suite('test mode off')

mockOff("SetMockInvoiceAsPaid answers upstream's error, naming the switch", async () => {
  const daemon = await startDaemon({ config: '[node]\nmock = false\n' })
  try {
    const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 50_000 }).paymentRequest
    for (const path of ['/api/node/mock/invoice/paid', '/api/lnd/mock/invoice/paid']) {
      const json = await call(daemon, 'POST', path, { invoice, amount: 0 }, {})
      assert.equal(json, { status: 'ERROR', reason: 'mock disabled, cannot set invoice as paid: test mode is off; turn it on with [node] mock = true (env RELAYPAY_NODE_MOCK=true), for tests and demos only' })
    }
  } finally {
    await daemon.stop()
  }
})

mockOff.run()
