// What the wallets' books say of operations the node reports: for the operator's assets-and-liabilities view, each
// invoice the node settled and each payment it made is matched to the wallet it was booked to (by payment hash),
// with when and how much the books say. An operation with no match moved money outside the wallets: the report
// leaves it untracked, which is what an operator auditing the node is looking for.
import type { BookedOperation, OperationBooks } from '../node/index.js'
import type { SqlExecutor, SqlStore } from '../store/index.js'
import { msatAsSats, unixSeconds } from '../units/index.js'


interface Row {
  payment_hash: string
  user_id: string
  at: number
  amount_msat: number
}

// The hashes travel as one JSON array: one statement for a page of any size; each engine turns it into rows its own way.
const hashRows = {
  sqlite: (column: string) => `FROM json_each(@hashes) h CROSS JOIN ${column} = h.value`,
  postgres: (column: string) => `FROM jsonb_array_elements_text(CAST(@hashes AS jsonb)) AS h(value) JOIN ${column} = h.value`,
}
const texts = (engine: SqlExecutor['engine']) => ({
  invoices: `SELECT i.payment_hash, i.user_id, i.paid_at AS at, i.paid_msat AS amount_msat
      ${hashRows[engine]('invoices i ON i.payment_hash')} WHERE i.paid_at IS NOT NULL`,
  payments: `SELECT p.payment_hash, p.user_id, p.resolved_at AS at, p.amount_msat
      ${hashRows[engine]('payments p ON p.payment_hash')} WHERE p.status = 'succeeded'`,
  // Locked (banned) wallets are left out, as upstream counts them.
  unlockedBalance: 'SELECT CAST(COALESCE(SUM(balance_msat), 0) AS BIGINT) AS total FROM users WHERE locked = 0',
})

export function bookedOperations(sql: SqlStore): OperationBooks {
  const text = texts(sql.engine)
  const byHash = async (statement: string, hashes: readonly string[]) => {
    const booked = new Map<string, BookedOperation>()
    if (hashes.length === 0) return booked
    const rows = await sql.many<Row>(statement, { hashes: JSON.stringify(hashes.map(hash => hash.toLowerCase())) })
    for (const row of rows) {
      booked.set(row.payment_hash, { userId: row.user_id, ts: unixSeconds(Number(row.at)), amountSats: msatAsSats(Number(row.amount_msat)) })
    }
    return booked
  }
  return {
    /** Settled invoices of the wallets among `paymentHashes`, by hash. */
    invoices: (paymentHashes: readonly string[]) => byHash(text.invoices, paymentHashes),
    /** Succeeded payments of the wallets among `paymentHashes`, by hash. */
    payments: (paymentHashes: readonly string[]) => byHash(text.payments, paymentHashes),
    /** What the wallets that are not locked hold, in msat. */
    async unlockedBalanceMsat(): Promise<number> {
      return Number((await sql.one<{ total: number }>(text.unlockedBalance))?.total ?? 0)
    },
  }
}
