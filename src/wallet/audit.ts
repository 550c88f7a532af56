// The audit: every stored balance equals its journal, every ledger transaction balances, money is conserved (the
// wallets together hold exactly what the system accounts gave them), and every payment and paid invoice has
// exactly the postings its status calls for. `relaypay audit` prints it; the daemon runs it at start and refuses
// outgoing payments while it fails.
import { openDatabaseFile, readDatabaseFile, sqliteSqlStore, type SqlExecutor, type SqlStore } from '../store/index.js'

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
  /**
   * Payments whose postings disagree with their status: every payment is debited once; an external one that
   * succeeded is settled and never refunded, a failed one refunded and never settled, a pending one neither; an
   * internal one (settled in its debit) neither.
   */
  paymentMismatches: { serial: number; status: string; problem: string }[]
  /**
   * Invoices whose paid mark and `invoice_credit` disagree (paid ⇔ credited once, with what was paid); a credit whose
   * ref names no invoice has no payment hash (and no serial when its ref is not a number).
   */
  invoiceMismatches: { serial: number | null; paymentHash: string | null; problem: string }[]
}

/**
 * The audit in one read-only snapshot (REPEATABLE READ on PostgreSQL; a read transaction on SQLite, which in WAL mode
 * sees one snapshot while the daemon writes). The statements are the subset both engines speak: sums cast to BIGINT
 * (PostgreSQL's SUM of a BIGINT is NUMERIC), camelCase aliases quoted, no alias used in WHERE or HAVING.
 */
export async function auditLedger(sql: SqlStore): Promise<AuditReport> {
  const r = await sql.transaction(
    async tx => {
      // The pool's statement timeout (5 s) is for the money paths; the audit reads every journal row (~10 s at a
      // million on SQLite here), and one that timed out at start would lock outgoing payments. Bounded all the same.
      if (tx.engine === 'postgres') await tx.run("SET LOCAL statement_timeout = '10min'")
      const balanceMismatches = await tx.many<AuditReport['balanceMismatches'][number]>(
        // One index range per wallet (ledger_entries_account). A join against a grouped subquery instead was
        // planned as a scan of the whole grouped result per wallet: minutes at 100k wallets.
        `SELECT "userId", "storedMsat", "journalMsat" FROM (
           SELECT u.id AS "userId", u.balance_msat AS "storedMsat",
             (SELECT CAST(COALESCE(SUM(e.amount_msat), 0) AS BIGINT) FROM ledger_entries e WHERE e.account = 'user:' || u.id) AS "journalMsat"
           FROM users u) AS balances
         WHERE "storedMsat" != "journalMsat"`,
      )
      const orphanEntries = await tx.many<AuditReport['balanceMismatches'][number]>(
        `SELECT substr(account, 6) AS "userId", 0 AS "storedMsat", CAST(SUM(amount_msat) AS BIGINT) AS "journalMsat" FROM ledger_entries
         WHERE account LIKE 'user:%' AND substr(account, 6) NOT IN (SELECT id FROM users) GROUP BY account`,
      )
      const unbalancedTransactions = await tx.many<AuditReport['unbalancedTransactions'][number]>(
        `SELECT t.id, t.kind, t.ref, CAST(COALESCE(SUM(e.amount_msat), 0) AS BIGINT) AS "sumMsat" FROM ledger_transactions t
         LEFT JOIN ledger_entries e ON e.transaction_id = t.id GROUP BY t.id, t.kind, t.ref HAVING COALESCE(SUM(e.amount_msat), 0) != 0`,
      )
      const systemRows = await tx.many<{ account: string; total: number }>(
        // In account order: PostgreSQL's hash aggregate returns groups in no particular order, and the report's
        // `systemAccounts` is compared across engines (`relaypay store copy`) and read by people.
        `SELECT account, CAST(SUM(amount_msat) AS BIGINT) AS total FROM ledger_entries WHERE account LIKE 'system:%'
         GROUP BY account ORDER BY account`,
      )
      const totals = (await tx.one<{ wallets: number; walletsTotalMsat: number; transactions: number }>(
        `SELECT (SELECT COUNT(*) FROM users) AS wallets,
           (SELECT CAST(COALESCE(SUM(balance_msat), 0) AS BIGINT) FROM users) AS "walletsTotalMsat",
           (SELECT COUNT(*) FROM ledger_transactions) AS transactions`,
      ))!
      return {
        balanceMismatches: [...balanceMismatches, ...orphanEntries],
        unbalancedTransactions,
        paymentMismatches: await paymentMismatches(tx),
        invoiceMismatches: await invoiceMismatches(tx),
        systemRows,
        ...totals,
      }
    },
    { readOnly: true, isolation: 'repeatable read' },
  )
  const systemAccounts = Object.fromEntries(r.systemRows.map(row => [row.account, row.total]))
  const systemTotal = r.systemRows.reduce((sum, row) => sum + row.total, 0)
  // Conservation: what the wallets hold is exactly what the system accounts gave out.
  const conserved = r.walletsTotalMsat + systemTotal === 0
  return {
    ok:
      conserved &&
      r.balanceMismatches.length === 0 &&
      r.unbalancedTransactions.length === 0 &&
      r.paymentMismatches.length === 0 &&
      r.invoiceMismatches.length === 0,
    wallets: r.wallets,
    transactions: r.transactions,
    walletsTotalMsat: r.walletsTotalMsat,
    systemAccounts,
    balanceMismatches: r.balanceMismatches,
    unbalancedTransactions: r.unbalancedTransactions,
    paymentMismatches: r.paymentMismatches,
    invoiceMismatches: r.invoiceMismatches,
  }
}

/** What one payment's wallet leg in a posting of `kind` sums to (null when there is no such posting). */
const paymentLeg = (kind: string) => `(SELECT CAST(SUM(e.amount_msat) AS BIGINT) FROM ledger_transactions t
    JOIN ledger_entries e ON e.transaction_id = t.id AND e.account = 'user:' || p.user_id
    WHERE t.kind = '${kind}' AND t.ref = CAST(p.serial AS TEXT))`
const posted = (kind: string) =>
  `EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.kind = '${kind}' AND t.ref = CAST(p.serial AS TEXT))`

interface PaymentPostings {
  status: string
  internal: number
  /** amount + service fee */
  total: number
  /** The payer's leg of the debit, and of the refund (null: not posted). */
  debit: number | null
  refund: number | null
  settled: number
  refunded: number
}

function paymentProblem(p: PaymentPostings): string | undefined {
  if (p.debit !== -p.total) return `debited ${p.debit ?? 'nothing'} msat instead of ${-p.total}`
  if (p.settled && p.refunded) return 'both settled and refunded'
  if (p.internal) {
    if (p.status !== 'succeeded') return `internal but ${p.status}`
    if (p.settled || p.refunded) return `internal but ${p.settled ? 'settled' : 'refunded'} afterwards`
    return undefined
  }
  if (p.status === 'succeeded' && !p.settled) return 'succeeded but not settled'
  if (p.status === 'failed' && p.refund !== p.total) return `failed but refunded ${p.refund ?? 'nothing'} msat instead of ${p.total}`
  if (p.status !== 'succeeded' && p.settled) return `${p.status} but settled`
  if (p.status !== 'failed' && p.refunded) return `${p.status} but refunded`
  return undefined
}

async function paymentMismatches(tx: SqlExecutor): Promise<AuditReport['paymentMismatches']> {
  const rows = await tx.many<PaymentPostings & { serial: number }>(
    `SELECT p.serial, p.status, p.internal, p.amount_msat + p.service_fee_msat AS total,
       ${paymentLeg('payment_debit')} AS debit, ${posted('payment_settle')} AS settled,
       ${posted('payment_refund')} AS refunded, ${paymentLeg('payment_refund')} AS refund
     FROM payments p`,
  )
  const problems: AuditReport['paymentMismatches'] = []
  for (const p of rows) {
    const problem = paymentProblem(p)
    if (problem) problems.push({ serial: p.serial, status: p.status, problem })
  }
  const orphans = await tx.many<{ ref: string; kind: string }>(
    `SELECT t.ref, t.kind FROM ledger_transactions t
     WHERE t.kind IN ('payment_debit', 'payment_settle', 'payment_refund')
       AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.serial = ${refSerial(tx)} AND CAST(p.serial AS TEXT) = t.ref)`,
  )
  for (const o of orphans) problems.push({ serial: Number(o.ref), status: 'missing', problem: `${o.kind} posted for no payment` })
  return problems
}

/**
 * A posting's ref as the serial of its row, for an index search by that number; PostgreSQL's cast would fail on a
 * ref that is not a number, which the audit must report rather than stop at. The caller compares the serial's text
 * with the ref as well, so '007' names no row.
 */
const refSerial = (tx: SqlExecutor) =>
  tx.engine === 'postgres' ? `CASE WHEN t.ref ~ '^[0-9]{1,18}$' THEN CAST(t.ref AS BIGINT) END` : 'CAST(t.ref AS INTEGER)'

/** An invoice's credit is the `invoice_credit` whose ref is the invoice's serial (migration 083). */
async function invoiceMismatches(tx: SqlExecutor): Promise<AuditReport['invoiceMismatches']> {
  const rows = await tx.many<{ serial: number; paymentHash: string; paidMsat: number | null; credited: number | null }>(
    `SELECT serial, "paymentHash", "paidMsat", credited FROM (
       SELECT i.serial, i.payment_hash AS "paymentHash", i.paid_at, i.paid_msat AS "paidMsat",
         (SELECT CAST(SUM(e.amount_msat) AS BIGINT) FROM ledger_transactions t
            JOIN ledger_entries e ON e.transaction_id = t.id AND e.account = 'user:' || i.user_id
            WHERE t.kind = 'invoice_credit' AND t.ref = CAST(i.serial AS TEXT)) AS credited
       FROM invoices i) AS credits
     WHERE (paid_at IS NULL AND EXISTS (SELECT 1 FROM ledger_transactions t
              WHERE t.kind = 'invoice_credit' AND t.ref = CAST(serial AS TEXT)))
        OR (paid_at IS NOT NULL AND credited IS DISTINCT FROM "paidMsat")`,
  )
  const problems: AuditReport['invoiceMismatches'] = rows.map(r => ({
    serial: r.serial,
    paymentHash: r.paymentHash,
    problem: r.paidMsat === null ? 'credited but not marked paid' : `paid ${r.paidMsat} msat but credited ${r.credited ?? 'nothing'}`,
  }))
  const orphans = await tx.many<{ ref: string }>(
    `SELECT t.ref FROM ledger_transactions t WHERE t.kind = 'invoice_credit'
       AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.serial = ${refSerial(tx)} AND CAST(i.serial AS TEXT) = t.ref)`,
  )
  for (const { ref } of orphans) problems.push({ serial: /^[0-9]{1,15}$/.test(ref) ? Number(ref) : null, paymentHash: null, problem: `credited for no invoice (journal ref ${ref})` })
  return problems
}

/**
 * The audit on a read-only connection of its own, closed after: a read transaction in WAL mode sees one consistent
 * snapshot while another connection writes, and the pages it reads (every wallet and journal row) leave with it
 * instead of staying in the daemon connection's page cache.
 */
export async function auditLedgerFile(file: string): Promise<AuditReport> {
  const db = openDatabaseFile(file)
  try {
    // A small page cache: the audit reads each page about once, and what its connection allocates stays in the
    // process after it closes (the worker thread's malloc arena keeps it): with SQLite's default 2 MB cache an audit
    // of 100k wallets left ~17 MB more resident memory behind than with this one.
    db.pragma('cache_size = -256')
    return await auditLedger(sqliteSqlStore(db))
  } finally {
    db.close()
  }
}

/** The id of the last journal entry in a database file (0 for none): a backup's manifest names it. */
export function lastLedgerEntryId(file: string): number {
  return readDatabaseFile(file, db => (db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM ledger_entries').get() as { id: number }).id)
}
