// A debit grant's rules as a wallet spend limit (src/wallet/payments/store.ts SpendLimit), run inside the payment
// transaction: the grant is re-read, its expiry checked and its budget summed over this key's payments by the
// wallet, in the same transaction (pending, and succeeded within the window, amount + service fee: the wallet's
// payments are the wallet's to read), and the payment is recorded for the next sum —
// so concurrent debits serialise on SQLite and never exceed the budget together. Two kinds of payment use it:
// the ones made for CLINK debit requests (debit-payer.ts), and PayInvoice / PayAppUserInvoice with `debit_npub`
// (upstream counts such a payment against that key's debit authorization), whose limit the
// daemon hands to the wallet as `debitLimit`. The limit runs on the wallet's `tx` only (debit-limit-store.ts), so it
// commits or rolls back with the payment and may be run again with it (PostgreSQL's retries).
import { OperationError } from '../bus/index.js'
import type { SpendLimit } from '../wallet/index.js'
import { DebitRefusal } from './debit-answers.js'
import { gfy } from './gfy.js'
import { expired, windowMs } from './debit-rules.js'
import { rulesOf } from './debit-store.js'
import { debitLimitStore, type DebitLimitStore } from './debit-limit-store.js'

export interface DebitCharge {
  userId: string
  requester: string
  appId: string
  /** The CLINK request answered about this payment; '' for a payment made through the API. */
  requestId: string
  /** `rules`: under the key's grant; `approved`: the user approved this one invoice (only a ban stops it). */
  mode: 'rules' | 'approved'
  /** Nobody waits for a CLINK answer about it (an API payment): recorded as answered. */
  answered?: boolean
}

export function debitSpendLimit(store: DebitLimitStore, charge: DebitCharge, recorded: (paymentHash: string) => void = () => {}): SpendLimit {
  return async (tx, terms, payments) => {
    const row = await store.access(tx, charge.userId, charge.requester)
    if (charge.mode === 'approved') {
      if (row && row.authorized === 0) throw new DebitRefusal(gfy(1), 'denied')
    } else {
      if (!row || row.authorized === 0) throw new DebitRefusal(gfy(1), 'denied')
      const rules = rulesOf(row)
      if (expired(rules, terms.at)) throw new DebitRefusal(gfy(3), 'expired')
      if (rules.frequency) {
        const hashes = await store.paymentHashes(tx, charge.userId, charge.requester)
        const spent = await payments.spentMsat(tx, charge.userId, hashes, terms.at - windowMs(rules.frequency))
        if (spent + terms.amountMsat + terms.serviceFeeMsat > rules.frequency.amount * 1000) {
          throw new DebitRefusal(gfy(5, { range: { min: 1, max: rules.frequency.amount } }), 'budget')
        }
      }
    }
    const recordedNow = await store.recordPayment(tx, {
      paymentHash: terms.paymentHash,
      userId: charge.userId,
      requester: charge.requester,
      appId: charge.appId,
      requestId: charge.requestId,
      answer: charge.answered ? 'answered' : 'paying',
      at: terms.at,
    })
    if (!recordedNow) {
      throw new OperationError('conflict', 'an earlier debit payment of this invoice is still being answered; try again later')
    }
    recorded(terms.paymentHash)
  }
}

const hexKey = /^[0-9a-f]{64}$/

/**
 * The limit of a payment that names `debit_npub`: it must fall under that key's grant (not banned, not expired,
 * within its budget) and then counts against it, like the key's own debits. For the wallet's `debitLimit`.
 */
export function debitNpubLimits() {
  const store = debitLimitStore()
  return (payment: { payerId: string; appId: string; debitNpub: string }): SpendLimit => {
    const requester = payment.debitNpub.trim().toLowerCase()
    if (!hexKey.test(requester)) throw new OperationError('invalid_input', 'debit_npub must be a 64-character hex public key')
    return debitSpendLimit(store, { userId: payment.payerId, requester, appId: payment.appId, requestId: '', mode: 'rules', answered: true })
  }
}
