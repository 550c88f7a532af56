// The world a fault test runs in: one real daemon (embedded node simulating payments to other nodes, embedded
// relay on a fixed port so relay clients find it again after a restart) on one data dir, with every kind of
// wallet the load needs, made the way their users make them: app users over HTTP (payers, payees, a restaurant
// and its customer, a payroll source and its employee) and two relay users who only speak kind-21000 RPC.
// It also holds the expected balance of every wallet, which the load moves as operations are known to apply.
import { spawn } from 'node:child_process'
import * as assert from 'uvu/assert'
import { cliPath, mockEnv, relaypayArgs, startDaemon, storeEnv, type TestDaemon } from '../support/daemon.js'
import { scanLogKeysOf } from '../support/log-keys.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { ok } from '../support/money.js'
import { unlimitedGuestsConfig } from '../extensions/restaurant/restaurant-daemon.js'
import { freePort } from '../support/ports.js'

const jwtSecret = 'chaos-test-jwt-secret-0123456789abcdef01'
/** The restaurant's only item; an order is 1–3 of them. */
export const colaSats = 500
export const fundingSats = 5_000_000

/** The service fee on an outgoing payment at the default [fees]: max(ceil(0.6 %), 10 sat). */
export const feeSats = (sats: number) => Math.max(Math.ceil((sats * 60) / 10_000), 10)
/** What the embedded node's simulation charges as routing fee on a payment to another node: 1 sat + 1000 ppm. */
export const simulatedRouteFeeMsat = (sats: number) => 1000 + Math.ceil((sats * 1000 * 1000) / 1_000_000)

export interface HttpWallet {
  name: string
  userId: string
  identifier: string
  /** `Bearer <user token>`. */
  auth: string
  invoiceKey: string
  adminKey: string
  expectedMsat: number
}

export interface RelayWallet {
  name: string
  client: PubClient
  expectedMsat: number
}

export interface ChaosWorld {
  readonly daemon: TestDaemon
  readonly dataDir: string
  appToken: string
  /** The app's own balance (its fees), expected, without the payroll source's fees. */
  appExpectedMsat: number
  /** Payment hash of every payroll period a tick answered as paid, by `<contract>/<period>`. */
  paidPeriods: Map<string, string>
  /** The fees of the payroll periods paid so far (recounted from the payroll ledger after every restart). */
  payrollFeesMsat: number
  /**
   * The payroll contracts made, as the recount knows them: those not yet paid in full, and what the ones paid in full
   * moved (they pay nothing more).
   */
  payroll: { open: Set<string>; closedOutMsat: number; closedFeesMsat: number }
  /** Money that came in from outside minus money that left to other nodes: what all wallets together hold. */
  netInflowMsat: number
  http: { alice: HttpWallet; bob: HttpWallet; carol: HttpWallet; diner: HttpWallet; source: HttpWallet; employee: HttpWallet }
  relay: { payer: RelayWallet; payee: RelayWallet }
  restaurantId: string
  colaId: string
  /** An operator call. */
  admin(method: string, path: string, body?: unknown): ReturnType<TestDaemon['request']>
  /** A host-API / extension call with a wallet key. */
  keyed(key: string, method: string, path: string, body?: unknown): ReturnType<TestDaemon['request']>
  /** Closes the relay users' connections (the daemon is left as it is). */
  closeClients(): void
  /** Starts the daemon again on the same data dir (after a kill). */
  restart(): Promise<TestDaemon>
  /**
   * Starts the daemon on the data dir and SIGKILLs it `fraction` of the way through the time the last start took:
   * a crash while it recovers (audits, resolves pending payments, redelivers paid invoices to the extensions).
   */
  crashWhileStarting(fraction: number): Promise<void>
  close(): Promise<void>
}

/**
 * The daemon for calls outside a kill window: a request cut by the keep-alive race (the server closing an idle
 * connection just as the client reuses it, frequent on an overloaded machine) is sent again, up to three times.
 * Only for calls whose repetition the oracle accepts (reads, set-up, and the resends it makes anyway).
 */
export function steadily(daemon: TestDaemon): TestDaemon {
  return {
    ...daemon,
    async request(method, urlPath, opts) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await daemon.request(method, urlPath, opts)
        } catch (err) {
          if (attempt >= 3 || !(err instanceof TypeError)) throw err
          await new Promise(resolve => setTimeout(resolve, 200))
        }
      }
    },
  }
}

/** `env`: more environment for the daemon (a bench's preload). */
export async function createChaosWorld(opts: { env?: Record<string, string> } = {}): Promise<ChaosWorld> {
  // The campaigns stress ordering from one loopback address; the guest limits have their own tests.
  const config = `${jwtSecretConfig(jwtSecret)}\n[node]\nsimulate_payments = true\n[payroll]\nfirst_tick_seconds = 3600\n${unlimitedGuestsConfig}`
  const env = { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(await freePort()), ...opts.env }
  const startTimeoutMs = 90_000 // restarts on a loaded 2-core machine
  let lastStartMs = Date.now()
  let daemon = await startDaemon({ config, env, startTimeoutMs })
  lastStartMs = Date.now() - lastStartMs
  const dataDir = daemon.dataDir
  const app = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })

  const keyed = (key: string, method: string, path: string, body?: unknown) =>
    steadily(daemon).request(method, path, { ...(body !== undefined ? { body } : {}), headers: { 'x-api-key': key } })
  const httpWallet = async (name: string, user?: { userId: string; userToken: string; identifier: string }): Promise<HttpWallet> => {
    const made = user ?? (await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: name }))
    const keys = await ok(daemon, '/api/user/wallet/keys', `Bearer ${made.userToken}`)
    return {
      name,
      userId: made.userId,
      identifier: made.identifier,
      auth: `Bearer ${made.userToken}`,
      invoiceKey: keys.invoice_key,
      adminKey: keys.admin_key,
      expectedMsat: 0,
    }
  }
  const http = {
    alice: await httpWallet('alice', app),
    bob: await httpWallet('bob'),
    carol: await httpWallet('carol'),
    diner: await httpWallet('diner'),
    source: await httpWallet('source'),
    employee: await httpWallet('employee'),
  }
  for (const funded of [http.alice, http.carol, http.source]) {
    await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: funded.identifier, amount: fundingSats })
    funded.expectedMsat = fundingSats * 1000
  }
  for (const [wallet, extension] of [[http.diner, 'restaurant'], [http.employee, 'payroll']] as const) {
    const enabled = await keyed(wallet.adminKey, 'PUT', `/api/v1/extension/${extension}/enable`)
    assert.is(enabled.status, 200, enabled.text)
  }

  // A restaurant with one item, which customers order without any key.
  const restaurant = await keyed(http.diner.adminKey, 'POST', '/restaurant/api/v1/restaurants', {
    name: 'Chaos Diner',
    slug: `chaos-${process.pid}`,
    currency: 'sat',
    timezone: 'UTC',
  })
  assert.is(restaurant.status, 201, restaurant.text)
  const drinks = await keyed(http.diner.adminKey, 'POST', '/restaurant/api/v1/menu_nodes', { restaurant_id: restaurant.json.id, name: 'Drinks' })
  assert.is(drinks.status, 201, drinks.text)
  const cola = await keyed(http.diner.adminKey, 'POST', '/restaurant/api/v1/menu_items', {
    restaurant_id: restaurant.json.id,
    node_id: drinks.json.id,
    name: 'Cola',
    price: String(colaSats),
  })
  assert.is(cola.status, 201, cola.text)

  // Two relay users (accounts of the default app, made by their first call); the payer is funded from outside.
  const profile = appProfile(dataDir)
  const relayClient = () => PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey, timeoutMs: 15_000 })
  const relay = { payer: { name: 'relay-payer', client: await relayClient(), expectedMsat: 0 }, payee: { name: 'relay-payee', client: await relayClient(), expectedMsat: 0 } }
  const funding = await relay.payer.client.ok('NewInvoice', { amountSats: fundingSats, memo: 'funding' })
  await ok(daemon, '/api/node/mock/invoice/paid', '', { invoice: funding.invoice, amount: 0 })
  relay.payer.expectedMsat = fundingSats * 1000
  await relay.payee.client.ok('GetUserInfo')

  const world: ChaosWorld = {
    get daemon() {
      return daemon
    },
    dataDir,
    appToken: app.appToken,
    appExpectedMsat: 0,
    paidPeriods: new Map(),
    payrollFeesMsat: 0,
    payroll: { open: new Set(), closedOutMsat: 0, closedFeesMsat: 0 },
    netInflowMsat: 4 * fundingSats * 1000,
    http,
    relay,
    restaurantId: restaurant.json.id,
    colaId: cola.json.id,
    admin: (method, path, body) =>
      steadily(daemon).request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${daemon.adminToken}` } }),
    keyed,
    async restart() {
      const started = Date.now()
      daemon = await startDaemon({ config, env, dataDir, startTimeoutMs })
      lastStartMs = Date.now() - started
      return daemon
    },
    async crashWhileStarting(fraction) {
      const child = spawn(process.execPath, relaypayArgs(cliPath, ['start', '--data-dir', dataDir, '--http-port', '0']), {
        env: { ...process.env, RELAYPAY_LOG_LEVEL: 'info', ...mockEnv({ config }), ...(await storeEnv(dataDir, { config, env })), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      scanLogKeysOf(child, `the start killed in ${dataDir}`)
      const exited = new Promise(resolve => child.on('exit', resolve))
      await new Promise(resolve => setTimeout(resolve, Math.floor(fraction * lastStartMs)))
      child.kill('SIGKILL')
      await exited
    },
    closeClients() {
      relay.payer.client.close()
      relay.payee.client.close()
    },
    async close() {
      world.closeClients()
      await daemon.stop()
    },
  }
  return world
}

/** Compares every wallet's balance, the app's fees and the whole with what the acknowledged operations say. */
export async function assertBalances(world: ChaosWorld, when: string): Promise<void> {
  const d = steadily(world.daemon)
  const [http, relay, app] = await Promise.all([
    Promise.all(Object.values(world.http).map(wallet => d.request('GET', '/api/v1/wallet', { headers: { 'x-api-key': wallet.invoiceKey } }))),
    Promise.all(Object.values(world.relay).map(wallet => wallet.client.ok('GetUserInfo'))),
    ok(d, '/api/app/get', world.appToken),
  ])
  Object.values(world.http).forEach((wallet, i) => assert.is(http[i]!.json?.balance, wallet.expectedMsat, `${when}: ${wallet.name}'s balance (msat)`))
  Object.values(world.relay).forEach((wallet, i) => assert.is(relay[i]!.balance * 1000, wallet.expectedMsat, `${when}: ${wallet.name}'s balance (msat)`))
  // GetApp answers whole sats; the routing fees of payments to other nodes leave msat fractions behind.
  assert.is(app.balance, Math.floor((world.appExpectedMsat + world.payrollFeesMsat) / 1000), `${when}: the app's fees (sats)`)
}
