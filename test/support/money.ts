// What the wallet tests share: calling operations over HTTP as one caller, reading balances the way an app
// does (GetAppUser, GetApp), and the independent check after every money test — the audit `relaypay audit` runs,
// on a connection of the test's own to the daemon's books.
import path from 'node:path'
import * as assert from 'uvu/assert'
import { storeUrlOf, type TestDaemon } from './daemon.js'

/** One operation over HTTP with `token` in the authorization header; returns the parsed body. */
export async function call(daemon: TestDaemon, path: string, token: string, body: unknown = {}): Promise<any> {
  const reply = await daemon.request('POST', path, { body, headers: token ? { authorization: token } : {} })
  return reply.json
}

/** Like call, but fails the test unless the answer is OK. */
export async function ok(daemon: TestDaemon, path: string, token: string, body: unknown = {}): Promise<any> {
  const reply = await call(daemon, path, token, body)
  assert.is(reply?.status, 'OK', `${path}: ${JSON.stringify(reply)}`)
  return reply
}

/** An app user's balance in sats, as its app reads it. */
export async function balanceOf(daemon: TestDaemon, appToken: string, identifier: string): Promise<number> {
  return (await ok(daemon, '/api/app/user/get', appToken, { user_identifier: identifier })).info.balance
}

/** The app's own balance (its owner wallet) in sats. */
export async function appBalance(daemon: TestDaemon, appToken: string): Promise<number> {
  return (await ok(daemon, '/api/app/get', appToken)).balance
}

/** A new invoice of the user behind `userToken`. */
export async function newInvoice(daemon: TestDaemon, userToken: string, amountSats: number, extra: object = {}): Promise<string> {
  return (await ok(daemon, '/api/user/invoice/new', userToken, { amountSats, memo: 'test', ...extra })).invoice
}

/** Pays an invoice of this daemon's node as if it came over Lightning (test mode). */
export async function payFromOutside(daemon: TestDaemon, invoice: string): Promise<void> {
  await ok(daemon, '/api/node/mock/invoice/paid', '', { invoice, amount: 0 })
}

export interface AuditReport {
  ok: boolean
  walletsTotalMsat: number
  systemAccounts: Record<string, number>
  balanceMismatches: unknown[]
  unbalancedTransactions: unknown[]
  paymentMismatches: unknown[]
  invoiceMismatches: unknown[]
}

/**
 * The audit of `relaypay audit` (the same function, auditLedger) on the daemon's books, safe while it runs: the data
 * dir's SQLite file on a read-only connection (one WAL snapshot), or the PostgreSQL database the harness gave that
 * data dir's daemon. In the test's own process, not by spawning the command: a spawn loads the daemon's modules again
 * (about half a second of CPU), and suites audit after every test. The command itself is tested in test/cli.
 */
export async function audit(dataDir: string): Promise<AuditReport> {
  const { auditLedger, auditLedgerFile } = await import('../../src/wallet/index.js')
  const storeUrl = storeUrlOf(dataDir)
  if (!storeUrl) return auditLedgerFile(path.join(dataDir, 'relaypay.sqlite'))
  const { postgresSqlStore } = await import('../../src/store/index.js')
  const store = postgresSqlStore({ url: storeUrl })
  try {
    return await auditLedger(store)
  } finally {
    await store.close()
  }
}

export async function assertAuditClean(dataDir: string): Promise<AuditReport> {
  const report = await audit(dataDir)
  assert.ok(report.ok, `audit failed: ${JSON.stringify(report, null, 2)}`)
  return report
}
