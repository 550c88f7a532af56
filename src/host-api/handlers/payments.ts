// The LNbits-compatible payments routes of the wallet host, the subset host-side tools call:
// create an invoice or pay one with a wallet key, and read a payment by its hash. Everything goes through the
// wallet's normal invoice and payment path, ledger and fees.
import { decode as decodeBolt11 } from 'light-bolt11-decoder'
import { type HandlerTable, OperationError, isOperationError } from '../../bus/index.js'
import { fiatToMsat, isKnownCurrency, type Rates } from '../../rates/index.js'
import { positiveSatsAsMsat, type CreatedInvoice, type InvoiceForWallet, type WalletInvoice, type WalletPayment } from '../../wallet/index.js'

export interface HostWalletDoor {
  createInvoiceFor(walletId: string, request: InvoiceForWallet): Promise<CreatedInvoice>
  payInvoiceFor(walletId: string, paymentRequest: string): Promise<WalletPayment>
  invoiceByPaymentHash(paymentHash: string): Promise<WalletInvoice | undefined>
  paymentByHash(paymentHash: string): Promise<WalletPayment | undefined>
}

const hostStatus = { pending: 'pending', succeeded: 'success', failed: 'failed' } as const

export function hostPaymentHandlers({ wallet, rates }: { wallet: HostWalletDoor; rates: Rates }): HandlerTable {
  const amountMsatOf = async (amount: string, unit: string): Promise<number> => {
    if (unit === 'sat') {
      if (!/^\d+$/.test(amount)) throw new OperationError('invalid_input', 'amount: sats must be a whole number')
      return positiveSatsAsMsat(Number(amount), 'amount')
    }
    if (!isKnownCurrency(unit)) throw new OperationError('invalid_input', 'The provided unit is not supported')
    const quote = await rates.spot(unit).catch(err => {
      throw new OperationError('invalid_input', isOperationError(err) ? err.message : `no BTC rate for ${unit}`)
    })
    return fiatToMsat(amount, quote.btcRate, 'ceil')
  }

  return {
    HostCreatePayment: async (input, ctx) => {
      const walletId = ctx.caller.walletId
      if (!input.out) {
        if (input.amount === undefined) throw new OperationError('invalid_input', 'amount: required to create an invoice')
        const amountMsat = await amountMsatOf(input.amount, input.unit ?? 'sat')
        if (amountMsat <= 0) throw new OperationError('invalid_input', 'amount must be greater than 0')
        const created = await wallet.createInvoiceFor(walletId, {
          amountMsat,
          memo: input.memo ?? '',
          ...(input.expiry !== undefined ? { expirySeconds: input.expiry } : {}),
          ...(input.extra !== undefined ? { extra: input.extra } : {}),
        })
        return { payment_hash: created.paymentHash, payment_request: created.paymentRequest, checking_id: created.paymentHash }
      }
      if (ctx.caller.keyType !== 'admin') {
        throw new OperationError('forbidden', 'Invoice (or Admin) key required.', { status: 403 })
      }
      if (!input.bolt11) throw new OperationError('invalid_input', 'bolt11: required to pay')
      try {
        const payment = await wallet.payInvoiceFor(walletId, input.bolt11)
        return { payment_hash: payment.paymentHash, checking_id: payment.paymentHash, status: hostStatus[payment.status] }
      } catch (err) {
        // An external payment whose outcome is not known yet stays pending in the wallet: say so, as LNbits does.
        if (isOperationError(err) && err.code === 'upstream_failed') {
          const hash = paymentHashOf(input.bolt11)
          const pending = hash ? await wallet.paymentByHash(hash) : undefined
          if (pending?.status === 'pending') return { payment_hash: hash!, checking_id: hash!, status: 'pending' as const }
        }
        throw err
      }
    },

    HostGetPayment: async (input, ctx) => {
      const hash = input.payment_hash.toLowerCase()
      const invoice = await wallet.invoiceByPaymentHash(hash)
      const payment = await wallet.paymentByHash(hash)
      // A payment of our own invoice by our own wallet has both rows: the caller's side wins.
      if (payment && (payment.walletId === ctx.caller.walletId || !invoice)) {
        const mine = payment.walletId === ctx.caller.walletId
        const status = hostStatus[payment.status]
        return {
          paid: payment.status === 'succeeded',
          ...(payment.status === 'failed' ? { status } : { preimage: payment.preimage ?? null }),
          ...(payment.status === 'pending' ? { status } : {}),
          ...(mine ? { details: paymentDetails(payment) } : {}),
        }
      }
      if (invoice) {
        const mine = invoice.walletId === ctx.caller.walletId
        return {
          paid: invoice.paid,
          preimage: null,
          ...(invoice.paid ? {} : { status: 'pending' as const }),
          ...(mine ? { details: invoiceDetails(invoice) } : {}),
        }
      }
      throw new OperationError('not_found', 'Payment does not exist.', { status: 404 })
    },
  }
}

function paymentHashOf(bolt11: string): string | undefined {
  try {
    const section = decodeBolt11(bolt11).sections.find(s => s.name === 'payment_hash') as { value?: string } | undefined
    return section?.value
  } catch {
    return undefined
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

function invoiceDetails(invoice: WalletInvoice) {
  const extra = invoice.extra ?? {}
  return {
    checking_id: invoice.paymentHash,
    payment_hash: invoice.paymentHash,
    wallet_id: invoice.walletId,
    amount: invoice.paidMsat ?? invoice.amountMsat,
    fee: 0,
    bolt11: invoice.paymentRequest,
    payment_request: invoice.paymentRequest,
    status: invoice.paid ? ('success' as const) : ('pending' as const),
    memo: invoice.memo,
    preimage: null,
    extra,
    tag: typeof extra.tag === 'string' ? extra.tag : null,
    time: iso(invoice.createdAt),
    expiry: iso(invoice.expiresAt),
  }
}

function paymentDetails(payment: WalletPayment) {
  return {
    checking_id: payment.paymentHash,
    payment_hash: payment.paymentHash,
    wallet_id: payment.walletId,
    // LNbits stores outgoing amounts and fees as negative msat.
    amount: -payment.amountMsat,
    fee: -(payment.serviceFeeMsat + (payment.routingFeeMsat ?? 0)),
    bolt11: payment.paymentRequest,
    payment_request: payment.paymentRequest,
    status: hostStatus[payment.status],
    memo: null,
    preimage: payment.preimage,
    extra: {},
    tag: null,
    time: iso(payment.createdAt),
    expiry: null,
  }
}
