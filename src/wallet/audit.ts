// The audit: every stored balance equals its journal, every ledger transaction balances, and money is conserved
// (the wallets together hold exactly what the system accounts gave them). `relaypay audit` prints it; the daemon
// runs it at start and refuses outgoing payments while it fails.
import type { Db } from '../store/index.js'

export interface AuditReport {
  ok: boolean
  wallets: number
  transactions: number
  walletsTotalMsat: number
  systemAccounts: Record<string, number>
  /** Wallets whose stored balance differs from the sum of their journal entries. */
  balanceMismatches: { userId: string; storedMsat: number; journalMsat: number }[]
  /** Ledger transactions whose entries do not sum to zero. */
  unbalancedTransactions: { id: number; kind: string; ref: string; sumMsat: number }[]
}

export function auditLedger(db: Db): AuditReport {
  const read = db.transaction(() => {
    const balanceMismatches = db
      .prepare(
        `SELECT u.id AS userId, u.balance_msat AS storedMsat, COALESCE(j.total, 0) AS journalMsat
         FROM users u LEFT JOIN (
           SELECT substr(account, 6) AS user_id, SUM(amount_msat) AS total FROM ledger_entries
           WHERE account LIKE 'user:%' GROUP BY account) j ON j.user_id = u.id
         WHERE u.balance_msat != COALESCE(j.total, 0)`,
      )
      .all() as AuditReport['balanceMismatches']
    const orphanEntries = db
      .prepare(
        `SELECT substr(account, 6) AS userId, 0 AS storedMsat, SUM(amount_msat) AS journalMsat FROM ledger_entries
         WHERE account LIKE 'user:%' AND substr(account, 6) NOT IN (SELECT id FROM users) GROUP BY account`,
      )
      .all() as AuditReport['balanceMismatches']
    const unbalancedTransactions = db
      .prepare(
        `SELECT t.id, t.kind, t.ref, COALESCE(SUM(e.amount_msat), 0) AS sumMsat FROM ledger_transactions t
         LEFT JOIN ledger_entries e ON e.transaction_id = t.id GROUP BY t.id HAVING sumMsat != 0`,
      )
      .all() as AuditReport['unbalancedTransactions']
    const systemRows = db
      .prepare(`SELECT account, SUM(amount_msat) AS total FROM ledger_entries WHERE account LIKE 'system:%' GROUP BY account`)
      .all() as { account: string; total: number }[]
    const wallets = db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number
    const walletsTotalMsat = db.prepare('SELECT COALESCE(SUM(balance_msat), 0) FROM users').pluck().get() as number
    const transactions = db.prepare('SELECT COUNT(*) FROM ledger_transactions').pluck().get() as number
    return { balanceMismatches: [...balanceMismatches, ...orphanEntries], unbalancedTransactions, systemRows, wallets, walletsTotalMsat, transactions }
  })
  const r = read()
  const systemAccounts = Object.fromEntries(r.systemRows.map(row => [row.account, row.total]))
  const systemTotal = r.systemRows.reduce((sum, row) => sum + row.total, 0)
  // Conservation: what the wallets hold is exactly what the system accounts gave out.
  const conserved = r.walletsTotalMsat + systemTotal === 0
  return {
    ok: conserved && r.balanceMismatches.length === 0 && r.unbalancedTransactions.length === 0,
    wallets: r.wallets,
    transactions: r.transactions,
    walletsTotalMsat: r.walletsTotalMsat,
    systemAccounts,
    balanceMismatches: r.balanceMismatches,
    unbalancedTransactions: r.unbalancedTransactions,
  }
}
