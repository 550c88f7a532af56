// Sends the paid-invoice callback for every credited invoice that has a callback URL: the one given when the
// invoice was made, else the wallet's saved callback_url (UpdateCallbackUrl). Fire-and-forget: failures are
// logged and never touch the credit, which committed before the event was emitted.
import { mergeMap, type Observable, type Subscription, ofType, type DomainEvent } from '../bus/index.js'
import type { Logger } from 'pino'
import { sendPaidCallback } from './paid-callback.js'
import type { GuardOptions } from './outbound-guard.js'
import { msatAsSats } from '../units/index.js'

export interface PaidCallbackDeps {
  events$: Observable<DomainEvent>
  invoice(paymentHash: string): Promise<
    | { paymentRequest: string; callback: { url: string; token: string | null; rejectUnauthorized: boolean }; payerData: unknown }
    | undefined
  >
  savedCallbackUrl(walletId: string): Promise<string | undefined>
  guard: GuardOptions
  log: Logger
}

/** At most this many callbacks in flight; more wait, so a slow integrator cannot pile up sockets. */
const concurrentCallbacks = 16

export function startPaidCallbacks(deps: PaidCallbackDeps): Subscription {
  return deps.events$
    .pipe(
      ofType('invoice.paid'),
      mergeMap(async event => {
        try {
          // Most paid invoices have no callback: the wallet's event says so without the invoice being read.
          let invoice = event.callbackUrl === undefined ? await deps.invoice(event.paymentHash) : undefined
          const url = (event.callbackUrl ?? invoice?.callback.url) || (await deps.savedCallbackUrl(event.walletId)) || ''
          if (!url) return
          invoice ??= await deps.invoice(event.paymentHash)
          if (!invoice) return
          const payerData =
            invoice.payerData && typeof invoice.payerData === 'object'
              ? Object.fromEntries(Object.entries(invoice.payerData).filter(([, v]) => typeof v === 'string')) as Record<string, string>
              : undefined
          const outcome = await sendPaidCallback(
            {
              urlTemplate: url,
              amountSats: msatAsSats(event.amountMsat),
              invoice: invoice.paymentRequest,
              ...(payerData ? { payerData } : {}),
              ...(invoice.callback.token ? { bearerToken: invoice.callback.token } : {}),
              rejectUnauthorized: invoice.callback.rejectUnauthorized,
            },
            deps.guard,
          )
          if (outcome.error) deps.log.warn({ paymentHash: event.paymentHash, error: outcome.error }, 'paid-invoice callback failed')
          else deps.log.debug({ paymentHash: event.paymentHash, status: outcome.status }, 'paid-invoice callback sent')
        } catch (err) {
          deps.log.error({ err, paymentHash: event.paymentHash }, 'paid-invoice callback failed unexpectedly')
        }
      }, concurrentCallbacks),
    )
    .subscribe()
}
