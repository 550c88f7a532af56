// The daemon a fuzz campaign runs against: the offline default plus fixed secrets, with an app, two users (the
// second takes the operations that would disarm the first), wallet keys, both extensions enabled, a restaurant with
// a menu, money on the main user, and the samples (invoices, bech32 strings, keys, ids) generators draw from.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import bolt11 from 'bolt11'
import { bech32 } from '@scure/base'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { npubEncode } from 'nostr-tools/nip19'
import { startDaemon, type TestDaemon } from '../daemon.js'
import { userToken } from '../accounts.js'
import type { FuzzSamples } from './bad-values.js'
import type { Credentials } from './http-cases.js'

const jwtSecret = 'fuzz-campaign-jwt-secret-0123456789abcdef'
const metricsToken = 'fuzz-metrics-token-0123456789abcdef'
export const maxBodyBytes = 1_048_576

export interface FuzzTarget {
  daemon: TestDaemon
  credentials: Credentials
  samples: FuzzSamples
}

async function ok(daemon: TestDaemon, method: string, urlPath: string, headers: Record<string, string>, body?: unknown) {
  const res = await daemon.request(method, urlPath, { headers, ...(body !== undefined ? { body } : {}) })
  const failed = res.status >= 400 || (res.json && res.json.status === 'ERROR')
  if (failed) throw new Error(`fuzz setup: ${method} ${urlPath} answered ${res.status} ${res.text}`)
  return res.json
}

/** BOLT11 invoices of another node: mainnet, expired, zero and absurd amounts, all correctly signed. */
function foreignInvoices(): string[] {
  const key = crypto.randomBytes(32).toString('hex')
  const make = (network: 'bitcoin' | 'regtest', fields: Record<string, unknown>) =>
    bolt11.sign(
      bolt11.encode({
        network: network === 'bitcoin' ? undefined : { bech32: 'bcrt', pubKeyHash: 111, scriptHash: 196, validWitnessVersions: [0, 1] },
        timestamp: Math.floor(Date.now() / 1000),
        tags: [
          { tagName: 'payment_hash', data: crypto.randomBytes(32).toString('hex') },
          { tagName: 'payment_secret', data: crypto.randomBytes(32).toString('hex') },
          { tagName: 'description', data: 'fuzz' },
        ],
        ...fields,
      } as never),
      key,
    ).paymentRequest!
  return [
    make('bitcoin', { millisatoshis: '1000' }),
    make('regtest', { millisatoshis: '1000', timestamp: 1_000_000_000 }),
    make('regtest', {}),
    make('regtest', { millisatoshis: '2100000000000000000' }),
    make('regtest', { millisatoshis: '1' }),
  ]
}

function bech32Samples(appNprofile: string, pointers: string[]): string[] {
  const encode = (prefix: string, text: string) => bech32.encode(prefix, bech32.toWords(new TextEncoder().encode(text)), 2000)
  return [
    npubEncode(getPublicKey(generateSecretKey())),
    appNprofile,
    encode('lnurl', 'http://127.0.0.1:9/.well-known/lnurlp/x'),
    encode('lnurl', 'javascript:alert(1)'),
    encode('npub', 'short'),
    encode('noffer', 'x'.repeat(300)),
    ...pointers,
  ]
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const daemon = await startDaemon({
    config: [
      '[auth]',
      `jwt_secret = "${jwtSecret}"`,
      `metrics_token = "${metricsToken}"`,
      '[http]',
      'allow_upgrade = true',
      `max_body_bytes = ${maxBodyBytes}`,
      // The campaign sends thousands of guest requests from loopback: the per-address guest budget stays out of it.
      'guest_requests_per_minute = 100000000',
      'guest_burst = 1000000',
      '[store]',
      // A campaign is about answers, not power loss: skipping an fsync per write triples its pace.
      'synchronous = "normal"',
      '[models]',
      // Nothing listens there: a download fails at once instead of reaching for the public model hub.
      'base_url = "http://127.0.0.1:9/models"',
      'engine = "missing"',
      '[nostr]',
      // Every fuzz client writes from loopback, one address: the campaign is about the daemon's answers, so the
      // embedded relay's per-address and per-author budgets (tested in test/relay and test/security) stay out of it.
      'relay_events_per_second_per_author = 100000',
      'relay_events_per_second_per_address = 100000',
      'relay_messages_per_second_per_address = 100000',
      'relay_connections_per_second_per_address = 100000',
      `relay_request_bytes_per_second_per_address = ${1024 ** 3}`,
      'relay_new_keys_per_minute_per_address = 100000',
      `relay_max_author_bytes = ${1024 ** 3}`,
      `relay_max_address_bytes = ${1024 ** 3}`,
      '',
    ].join('\n'),
    env: { RELAYPAY_LOG_LEVEL: 'warn' },
  })
  try {
    return await prepare(daemon)
  } catch (err) {
    await daemon.kill()
    throw err
  }
}

async function prepare(daemon: TestDaemon): Promise<FuzzTarget> {
  const admin = { authorization: daemon.adminToken }
  const added = await ok(daemon, 'POST', '/api/admin/app/add', admin, { name: 'fuzz', allow_user_creation: true })
  const app = { authorization: added.auth_token as string }
  const appId: string = added.app.id
  const users = []
  for (const identifier of ['fuzz-main', 'fuzz-spare']) {
    const user = await ok(daemon, 'POST', '/api/app/user/add', app, { identifier, fail_if_exists: true, balance: 0 })
    const token = await userToken(jwtSecret, { userId: user.info.userId, appId, identifier })
    const bearer = { authorization: `Bearer ${token}` }
    const keys = await ok(daemon, 'POST', '/api/user/wallet/keys', bearer)
    for (const extension of ['restaurant', 'payroll']) await ok(daemon, 'PUT', `/api/v1/extension/${extension}/enable`, { 'x-api-key': keys.admin_key })
    const wallet = await ok(daemon, 'GET', '/api/v1/wallet', { 'x-api-key': keys.admin_key })
    const info = await ok(daemon, 'POST', '/api/user/info', bearer)
    users.push({ identifier, userId: user.info.userId as string, bearer, keys, walletId: wallet.id as string, info })
  }
  const [main, spare] = users as [(typeof users)[number], (typeof users)[number]]
  await ok(daemon, 'POST', '/api/app/mock/user/blance/set', app, { user_identifier: main.identifier, amount: 1_000_000 })
  await ok(daemon, 'POST', '/api/app/mock/blance/set', app, { amount: 1_000_000 })

  const mainKey = { 'x-api-key': main.keys.admin_key as string }
  const restaurant = await ok(daemon, 'POST', '/restaurant/api/v1/restaurants', mainKey, { name: 'Fuzz Diner', slug: 'fuzz-diner', currency: 'sat' })
  const node = await ok(daemon, 'POST', '/restaurant/api/v1/menu_nodes', mainKey, { restaurant_id: restaurant.id, name: 'Mains' })
  const item = await ok(daemon, 'POST', '/restaurant/api/v1/menu_items', mainKey, { restaurant_id: restaurant.id, node_id: node.id, name: 'Soup', price: '21' })

  const invoices: string[] = []
  for (const amountSats of [1, 1000, 21_000]) invoices.push((await ok(daemon, 'POST', '/api/user/invoice/new', main.bearer, { amountSats, memo: 'fuzz' })).invoice)
  const appNprofile = fs.readFileSync(path.join(daemon.dataDir, 'app.nprofile'), 'utf8').trim()
  const pointers = [main.info.noffer, main.info.ndebit, main.info.nmanage].filter((p: unknown): p is string => typeof p === 'string' && p.length > 0)

  return {
    daemon,
    credentials: {
      none: {},
      admin,
      adminBearer: { authorization: `Bearer ${daemon.adminToken}` },
      metrics: { authorization: metricsToken },
      app,
      user: main.bearer,
      invoiceKey: { 'x-api-key': main.keys.invoice_key },
      adminKey: mainKey,
      spareUser: spare.bearer,
      spareInvoiceKey: { 'x-api-key': spare.keys.invoice_key },
      spareAdminKey: { 'x-api-key': spare.keys.admin_key },
    },
    samples: {
      invoices: [...invoices, ...foreignInvoices()],
      bech32: bech32Samples(appNprofile, pointers),
      hex64: [crypto.randomBytes(32).toString('hex'), getPublicKey(generateSecretKey()), '0'.repeat(64), spare.userId],
      // The main user's own ids stay out: BanUser with them would lock the campaign out of user operations.
      ids: [restaurant.id, node.id, item.id, main.walletId, spare.walletId, spare.identifier, spare.userId, appId, 'fuzz-diner'],
    },
  }
}
