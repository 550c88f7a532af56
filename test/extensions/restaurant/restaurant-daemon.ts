// What the restaurant tests share: a daemon, wallets with keys made the way a host user makes them (app user →
// user token → wallet keys → enable the extension), and a small client for the restaurant API.
import fs from 'node:fs'
import path from 'node:path'
import { startDaemon, type TestDaemon, type StartOptions } from '../../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../../support/accounts.js'

export const base = '/restaurant/api/v1'
export const jwtSecret = 'restaurant-test-secret-0123456789abcdef'

export interface TestWallet {
  walletId: string
  adminKey: string
  invoiceKey: string
  userToken: string
}

export interface Answer {
  status: number
  json: any
  text: string
  headers: Headers
}

export interface RestaurantDaemon {
  daemon: TestDaemon
  /** A call to the restaurant API; `key` goes in X-Api-Key. */
  api(method: string, path: string, opts?: { body?: unknown; key?: string; headers?: Record<string, string> }): Promise<Answer>
  /** A new wallet (its own account), optionally with the restaurant extension enabled. */
  wallet(opts?: { enable?: boolean }): Promise<TestWallet>
  /** Credits a wallet from outside: an invoice of its own, paid through the embedded node's mock control. */
  fund(wallet: TestWallet, sats: number): Promise<void>
  /** Pays an invoice from a wallet (the user operation PayInvoice with its user token). */
  pay(wallet: TestWallet, paymentRequest: string): Promise<Answer>
  /** The wallet's balance in msat (host API `GET /api/v1/wallet`). */
  balanceMsat(wallet: TestWallet): Promise<number>
  relayUrl(): string
  /** Stops the daemon (`kill`: SIGKILL, as a crash) and starts it again on the same data dir. */
  restart(opts?: { kill?: boolean; beforeStart?: (dataDir: string) => void | Promise<void> }): Promise<void>
  stop(): Promise<void>
}

let counter = 0

/**
 * `[restaurant]` limits and the `[http]` guest budget no load can reach: for benches and fault campaigns that
 * measure or stress ordering itself from one loopback address (the guest limits have their own tests).
 */
export const unlimitedGuestsConfig = `
[http]
guest_requests_per_minute = 100000000
guest_burst = 1000000
[restaurant]
orders_per_minute = 100000
orders_burst = 100000
quotes_per_minute = 100000
quotes_burst = 100000
restaurant_orders_per_minute = 100000
max_unpaid_orders = 1000000
`

export async function startRestaurantDaemon(opts: { config?: string; env?: StartOptions['env'] } = {}): Promise<RestaurantDaemon> {
  const config = jwtSecretConfig(jwtSecret) + (opts.config ?? '')
  let daemon = await startDaemon({ config, env: opts.env })
  const app = await createAppWithUser(daemon, { jwtSecret, identifier: `owner-${process.pid}-${counter++}` })

  async function keysFor(userToken: string) {
    const keys = await daemon.request('POST', '/api/user/wallet/keys', { headers: { authorization: `Bearer ${userToken}` } })
    if (keys.json?.status !== 'OK') throw new Error(`wallet keys: ${keys.text}`)
    return keys.json as { admin_key: string; invoice_key: string }
  }

  const rd: RestaurantDaemon = {
    get daemon() {
      return daemon
    },
    async api(method, urlPath, o = {}) {
      return daemon.request(method, base + urlPath, {
        body: o.body,
        headers: { ...(o.key ? { 'x-api-key': o.key } : {}), ...o.headers },
      })
    },
    async wallet(o = {}) {
      const user = await addAppUser(daemon, {
        appToken: app.appToken,
        appId: app.appId,
        jwtSecret,
        identifier: `wallet-${process.pid}-${counter++}`,
      })
      const keys = await keysFor(user.userToken)
      const wallet = { walletId: user.userId, adminKey: keys.admin_key, invoiceKey: keys.invoice_key, userToken: user.userToken }
      if (o.enable !== false) {
        const enabled = await daemon.request('PUT', '/api/v1/extension/restaurant/enable', { headers: { 'x-api-key': wallet.adminKey } })
        if (enabled.status !== 200) throw new Error(`enable: ${enabled.text}`)
      }
      return wallet
    },
    async fund(wallet, sats) {
      const invoice = await daemon.request('POST', '/api/user/invoice/new', {
        body: { amountSats: sats, memo: 'funding' },
        headers: { authorization: `Bearer ${wallet.userToken}` },
      })
      if (invoice.json?.status !== 'OK') throw new Error(`funding invoice: ${invoice.text}`)
      const paid = await daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: invoice.json.invoice, amount: 0 } })
      if (paid.json?.status !== 'OK') throw new Error(`mock pay: ${paid.text}`)
      await eventually(async () => (await rd.balanceMsat(wallet)) >= sats * 1000, 'funded balance')
    },
    async pay(wallet, paymentRequest) {
      return daemon.request('POST', '/api/user/invoice/pay', {
        body: { invoice: paymentRequest, amount: 0 },
        headers: { authorization: `Bearer ${wallet.userToken}` },
      })
    },
    async balanceMsat(wallet) {
      const info = await daemon.request('GET', '/api/v1/wallet', { headers: { 'x-api-key': wallet.invoiceKey } })
      if (info.status !== 200) throw new Error(`wallet: ${info.status} ${info.text}`)
      return info.json.balance
    },
    relayUrl() {
      return JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
    },
    async restart(o = {}) {
      if (o.kill) await daemon.kill()
      else await daemon.stop()
      await o.beforeStart?.(daemon.dataDir)
      daemon = await startDaemon({ dataDir: daemon.dataDir, config, env: opts.env })
    },
    async stop() {
      await daemon.stop()
    },
  }
  return rd
}

/** Polls `check` until it holds (every 50 ms, up to `ms`), else fails naming `what`. */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms
  for (;;) {
    if (await check()) return
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

/** A 3-level menu with modifiers and a window that covers every day: Food › Mains › Burgers, Drinks. */
export async function buildMenu(rd: RestaurantDaemon, owner: TestWallet, restaurant: { currency?: string; slug?: string } = {}) {
  const key = owner.adminKey
  const slug = restaurant.slug ?? `diner-${process.pid}-${counter++}`
  const made = await rd.api('POST', '/restaurants', {
    key,
    body: { name: 'The Diner', slug, description: 'Burgers & more', currency: restaurant.currency ?? 'sat', timezone: 'Europe/Berlin' },
  })
  if (made.status !== 201) throw new Error(`restaurant: ${made.status} ${made.text}`)
  const id: string = made.json.id
  const node = async (name: string, parent_id?: string, sort = 0) => {
    const res = await rd.api('POST', '/menu_nodes', { key, body: { restaurant_id: id, name, parent_id, sort } })
    if (res.status !== 201) throw new Error(`node ${name}: ${res.status} ${res.text}`)
    return res.json
  }
  const food = await node('Food')
  const mains = await node('Mains', food.id)
  const burgers = await node('Burgers', mains.id)
  const drinks = await node('Drinks', undefined, 1)
  const item = async (name: string, node_id: string, price: string) => {
    const res = await rd.api('POST', '/menu_items', { key, body: { restaurant_id: id, node_id, name, price, description: `${name}, freshly made` } })
    if (res.status !== 201) throw new Error(`item ${name}: ${res.status} ${res.text}`)
    return res.json
  }
  const burger = await item('Cheeseburger', burgers.id, restaurant.currency && restaurant.currency !== 'sat' ? '9.50' : '2000')
  const cola = await item('Cola', drinks.id, restaurant.currency && restaurant.currency !== 'sat' ? '2.25' : '500')
  const size = (await rd.api('POST', '/modifier_groups', { key, body: { item_id: burger.id, name: 'Size', min_select: 1, max_select: 1 } })).json
  const single = (await rd.api('POST', '/modifiers', { key, body: { group_id: size.id, name: 'Single', price_delta: '0' } })).json
  const double = (await rd.api('POST', '/modifiers', {
    key,
    body: { group_id: size.id, name: 'Double', price_delta: restaurant.currency && restaurant.currency !== 'sat' ? '3.25' : '1000' },
  })).json
  const extras = (await rd.api('POST', '/modifier_groups', { key, body: { item_id: burger.id, name: 'Extras', min_select: 0, max_select: 2 } })).json
  const bacon = (await rd.api('POST', '/modifiers', {
    key,
    body: { group_id: extras.id, name: 'Bacon', price_delta: restaurant.currency && restaurant.currency !== 'sat' ? '1.10' : '300' },
  })).json
  const onions = (await rd.api('POST', '/modifiers', { key, body: { group_id: extras.id, name: 'Onions', price_delta: '0' } })).json
  const allWeek = await rd.api('POST', '/availability_windows', {
    key,
    body: { item_id: burger.id, days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '00:00' },
  })
  if (allWeek.status !== 201) throw new Error(`window: ${allWeek.status} ${allWeek.text}`)
  return { id, slug, food, mains, burgers, drinks, burger, cola, size, single, double, extras, bacon, onions }
}
