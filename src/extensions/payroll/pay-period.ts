// Paying one period (docs/payroll.md, "Paying a period"): price it, check the source wallet, claim the period in
// the ledger, create the internal invoice on the employee wallet, pay it from the source wallet. The invoice's msat
// amount is canonical and recorded once.
//
// The claim comes before the invoice so that a second payer cannot even start; the row becomes `paid` through
// ledger.settle, called by the payer and by the invoice-paid listener alike, so a crash after the money moved
// still records the period (the host redelivers paid invoices at start). A refused payment ends the claim as
// `failed`; the unpaid invoice stays on the employee wallet and expires by itself.
import type { Logger } from 'pino'
import { isOperationError, type Clock } from '../../bus/index.js'
import type { Rates } from '../../rates/index.js'
import type { ExtensionWallets } from '../host/index.js'
import type { Contract } from './contracts-store.js'
import type { Attempt, LedgerStore, Payout } from './ledger-store.js'
import { extraOf, memoOf, type MarkedPeriod } from './payment-marker.js'
import { PricingFailed, pricePeriod, type PricingTerms } from './pricing.js'
import { msatAsSats, satsCovering } from '../../units/index.js'

/** Long enough for an internal payment; a claim left by a crash is closed once its invoice has expired. */
export const invoiceExpirySeconds = 600
const claimSlackSeconds = 60

export interface PayPeriodDeps {
  ledger: LedgerStore
  wallets: ExtensionWallets
  rates: Rates
  clock: Clock
  log: Logger
}

export interface PayPeriodRequest {
  contract: Contract
  period: number
  payday: string
  today: string
  /** The pricing terms, with pay-now's overrides already applied. */
  pricing: PricingTerms
  /** Kept in `detail` when the period is paid (pay-now's early-payment note). */
  paidNote: string
}

/**
 * Attempts the period once and returns its ledger row, `paid` or `failed`. Undefined when another payer holds
 * or has paid the period: nothing was attempted.
 */
export async function payPeriod(deps: PayPeriodDeps, request: PayPeriodRequest): Promise<Payout | undefined> {
  const { ledger, wallets, clock, log } = deps
  const { contract, period, payday } = request
  const attempt: Attempt = { contract, period, payday, amountMsat: null, rate: null, rateSource: null, memo: null, detail: '' }
  const fail = (detail: string) => ledger.recordFailure({ ...attempt, detail }, clock.now())

  let price
  try {
    price = await pricePeriod(deps.rates, request.pricing, payday, request.today)
  } catch (err) {
    if (err instanceof PricingFailed) return fail(err.message)
    throw err
  }
  const marked: MarkedPeriod = { contractId: contract.id, contractName: contract.name, period, payday, amount: contract.amount, currency: contract.currency }
  const priced: Attempt = {
    ...attempt,
    amountMsat: price.amountMsat,
    rate: price.rate,
    rateSource: price.rateSource,
    memo: memoOf(marked, price),
  }
  const failPriced = (detail: string) => ledger.recordFailure({ ...priced, detail }, clock.now())

  const source = await wallets.get(contract.sourceWallet)
  if (!source) return failPriced(`source wallet ${contract.sourceWallet} does not exist`)
  if (!(await wallets.get(contract.employeeWallet))) return failPriced(`employee wallet ${contract.employeeWallet} does not exist`)
  if (source.balanceMsat < price.amountMsat) return failPriced(underfunded(source.balanceMsat, price.amountMsat))

  const now = clock.now()
  const claim = await ledger.claim({ ...priced, detail: request.paidNote }, now, now + (invoiceExpirySeconds + claimSlackSeconds) * 1000)
  if (!claim) return undefined

  let invoice
  try {
    invoice = await wallets.createInvoice(contract.employeeWallet, {
      amountMsat: price.amountMsat,
      memo: priced.memo!,
      expirySeconds: invoiceExpirySeconds,
      extra: extraOf(marked, price),
    })
  } catch (err) {
    return await ledger.failClaim(claim.id, causeOf(err, log, 'the employee invoice could not be created'))
  }
  await ledger.attachInvoice(claim.id, invoice.paymentHash)

  try {
    await wallets.payInvoice(contract.sourceWallet, invoice.paymentRequest)
  } catch (err) {
    // The wallet refuses having moved nothing; if the listener saw the invoice paid after all, failClaim
    // leaves the paid row alone.
    let cause: string
    if (isOperationError(err) && err.code === 'insufficient_balance') {
      // The balance covered the amount but not the payments service's fee, which only the wallet knows.
      const availableMsat = (await wallets.get(contract.sourceWallet))?.balanceMsat ?? 0
      cause = underfunded(availableMsat, price.amountMsat) + (availableMsat >= price.amountMsat ? ", plus the payment's fee" : '')
    } else {
      cause = causeOf(err, log, 'the payment from the source wallet failed')
    }
    return await ledger.failClaim(claim.id, cause)
  }
  return (await ledger.settle(invoice.paymentHash, clock.now()))?.row ?? (await ledger.get(claim.id))!
}

/** The fixed shape of this failure: `insufficient balance in source wallet: <n> sat available, <n> sat required`. */
function underfunded(balanceMsat: number, requiredMsat: number): string {
  return `insufficient balance in source wallet: ${msatAsSats(balanceMsat)} sat available, ${satsCovering(requiredMsat)} sat required`
}

/** A wallet's refusal is shown as it was worded; anything else is logged and named only generally. */
function causeOf(err: unknown, log: Logger, what: string): string {
  if (isOperationError(err)) return `${what}: ${err.message}`
  log.error({ err }, what)
  return `${what}: internal error`
}
