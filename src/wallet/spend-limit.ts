// A caller's own limit on one payment, as the wallet's payment path runs it (pay-invoice.ts) and other rooms hand it
// in (CLINK's debit budgets).
import type { SqlExecutor } from '../store/index.js'
import type { PaymentTerms } from './payments/store.js'
import type { PaymentSums } from './transaction-history.js'

/**
 * A caller's own limit on one payment (a CLINK debit budget), run on the payment's `tx` after the repeat checks and
 * before the payer is debited, so payments against one limit serialise and the limit sees every one committed
 * before it. It uses only `tx` (and may be run again: PostgreSQL retries a transaction after a serialization
 * failure); `payments` reads the wallet's payments on that `tx`. It refuses by throwing an OperationError: the
 * payment then rolls back alone. Rows it writes commit or roll back with the payment.
 */
export type SpendLimit = (tx: SqlExecutor, payment: PaymentTerms, payments: PaymentSums) => Promise<void>
