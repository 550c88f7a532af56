// A real daemon for payroll tests, with wallets made the way an integrator makes them (AddApp → AddAppUser →
// user token → wallet keys), funded through the test-mode balance operation, and the operator's and the
// employees' clients. The scheduler's own timer is pushed an hour out: tests run ticks with
// `POST /payroll/api/v1/scheduler/tick`, so no tick happens behind a test's back.
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../../support/accounts.js'
import { startDaemon, type StartOptions, type TestDaemon } from '../../support/daemon.js'

const jwtSecret = 'payroll-test-jwt-secret-0123456789abcdef'
export const base = '/payroll/api/v1'

export interface TestWallet {
  id: string
  identifier: string
  invoiceKey: string
  adminKey: string
}

export interface Reply {
  status: number
  json: any
  text: string
  headers: Headers
}

export interface PayrollDaemon {
  daemon: TestDaemon
  /** An operator call (`Authorization: Bearer <admin token>`) under the payroll base path. */
  op(method: string, path: string, body?: unknown): Promise<Reply>
  /** A call with a wallet key in X-Api-Key under the payroll base path. */
  as(key: string, method: string, path: string): Promise<Reply>
  /** A new wallet (its own account); `enable` turns the payroll extension on for it. */
  wallet(opts?: { enable?: boolean }): Promise<TestWallet>
  /** Sets a wallet's balance in sats (test mode). */
  fund(wallet: TestWallet, sats: number): Promise<void>
  balanceMsat(wallet: TestWallet): Promise<number>
  /** Runs one scheduler pass and returns its answer. */
  tick(): Promise<Reply>
  stop(): Promise<void>
}

export interface PayrollDaemonOptions {
  /** More TOML sections (not `[payroll]`). */
  config?: string
  /** More `[payroll]` keys, e.g. `today_override = "2025-01-31"`. */
  payroll?: string
  /** Reuse a data dir (restarts). */
  dataDir?: string
  /** The scheduler's own first pass; an hour by default, so only the test's ticks run. */
  firstTickSeconds?: number
}

export async function startPayrollDaemon(opts: PayrollDaemonOptions = {}): Promise<PayrollDaemon> {
  const startOptions: StartOptions = {
    config: `${jwtSecretConfig(jwtSecret)}\n[payroll]\nfirst_tick_seconds = ${opts.firstTickSeconds ?? 3600}\n${opts.payroll ?? ''}\n${opts.config ?? ''}`,
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
  }
  const daemon = await startDaemon(startOptions)
  const app = await createAppWithUser(daemon, { jwtSecret })
  let count = 0

  const payrollDaemon: PayrollDaemon = {
    daemon,
    op: (method, path, body) =>
      daemon.request(method, base + path, {
        ...(body !== undefined ? { body } : {}),
        headers: { authorization: `Bearer ${daemon.adminToken}` },
      }),
    as: (key, method, path) => daemon.request(method, base + path, { headers: { 'x-api-key': key } }),
    async wallet(wopts = {}) {
      const identifier = `payroll-wallet-${++count}`
      const user = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier })
      const keys = await daemon.request('POST', '/api/user/wallet/keys', { headers: { authorization: `Bearer ${user.userToken}` } })
      if (keys.json?.status !== 'OK') throw new Error(`GetWalletKeys failed: ${keys.text}`)
      const wallet = { id: user.userId, identifier, invoiceKey: keys.json.invoice_key, adminKey: keys.json.admin_key }
      if (wopts.enable) {
        const enabled = await daemon.request('PUT', '/api/v1/extension/payroll/enable', { headers: { 'x-api-key': wallet.adminKey } })
        if (enabled.status !== 200) throw new Error(`enabling payroll failed: ${enabled.text}`)
      }
      return wallet
    },
    async fund(wallet, sats) {
      const set = await daemon.request('POST', '/api/app/mock/user/blance/set', {
        body: { user_identifier: wallet.identifier, amount: sats },
        headers: { authorization: app.appToken },
      })
      if (set.json?.status !== 'OK') throw new Error(`SetMockAppUserBalance failed: ${set.text}`)
    },
    async balanceMsat(wallet) {
      const got = await daemon.request('GET', '/api/v1/wallet', { headers: { 'x-api-key': wallet.invoiceKey } })
      if (got.status !== 200) throw new Error(`GET /api/v1/wallet failed: ${got.text}`)
      return got.json.balance
    },
    tick: () => payrollDaemon.op('POST', '/scheduler/tick'),
    async stop() {
      await daemon.stop()
    },
  }
  return payrollDaemon
}

/** A contract body with every required field; tests override what they examine. */
export function contractBody(employee: TestWallet, source: TestWallet, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Alice salary',
    employee_wallet: employee.id,
    source_wallet: source.id,
    amount: '1000',
    currency: 'sat',
    frequency: 'monthly',
    start_date: '2030-01-31',
    total_periods: 12,
    ...overrides,
  }
}

const msPerDay = 86_400_000

/** The UTC day `days` from today (negative: in the past), as YYYY-MM-DD. */
export function dayFromToday(days: number, now = Date.now()): string {
  return new Date(Math.floor(now / msPerDay) * msPerDay + days * msPerDay).toISOString().slice(0, 10)
}

/** Today's UTC day moved by whole calendar months, the day clamped to the month's end. */
export function monthsFromToday(months: number, now = Date.now()): string {
  const today = new Date(now)
  const target = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + months, 1))
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate()
  target.setUTCDate(Math.min(today.getUTCDate(), last))
  return target.toISOString().slice(0, 10)
}

/** `round_half_up(amount × 10^11 / rate)` with BigInt, written here independently of the daemon's arithmetic. */
export function expectedMsat(amount: string, rate: string): number {
  const [aw, af = ''] = amount.split('.')
  const [rw, rf = ''] = rate.split('.')
  const num = BigInt(aw + af) * 10n ** BigInt(11 + rf.length)
  const den = BigInt(rw + rf) * 10n ** BigInt(af.length)
  const q = num / den
  return Number(2n * (num % den) >= den ? q + 1n : q)
}
