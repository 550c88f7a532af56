// What the wallet tests share: calling operations over HTTP as one caller, reading balances the way an app
// does (GetAppUser, GetApp), and the independent check after every money test — `relaypay audit` run as a
// separate process against the daemon's data dir.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import * as assert from 'uvu/assert'
import { cliPath, storeUrlOf, type TestDaemon } from './daemon.js'

const run = promisify(execFile)

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
 * Runs `relaypay audit --json` on the data dir (safe while the daemon runs) and returns its report; on the books in
 * PostgreSQL when the harness put that data dir's daemon there.
 */
export async function audit(dataDir: string): Promise<AuditReport> {
  const storeUrl = storeUrlOf(dataDir)
  const where = storeUrl ? ['--store-url', storeUrl] : ['--data-dir', dataDir]
  try {
    const { stdout } = await run(process.execPath, [cliPath, 'audit', ...where, '--json'])
    return JSON.parse(stdout)
  } catch (err) {
    // Exit 1 still prints the report.
    const stdout = (err as { stdout?: string }).stdout
    if (stdout) return JSON.parse(stdout)
    throw err
  }
}

export async function assertAuditClean(dataDir: string): Promise<AuditReport> {
  const report = await audit(dataDir)
  assert.ok(report.ok, `audit failed: ${JSON.stringify(report, null, 2)}`)
  return report
}
