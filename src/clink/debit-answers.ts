// What a debit requester hears (the CLINK debits spec; docs/pub-protocol.md, "Debits"): `{res:"ok"}`,
// `{res:"ok", preimage}`, or GFY ("general failure to yield") with a code 1–6, and for code 5 the allowed range.
import type { Logger } from 'pino'
import { OperationError, isOperationError } from '../bus/index.js'
import { clinkDebitKind, type ClinkSender } from './wire.js'
import { gfy, gfyText } from './gfy.js'
import type { ParkedRequest } from './debit-store.js'

export type DebitAnswer = Record<string, unknown>

export const ok = (preimage?: string): DebitAnswer => (preimage === undefined ? { res: 'ok' } : { res: 'ok', preimage })

/**
 * A debit's own refusal, thrown by its spend limit inside the payment transaction (which then rolls back alone) and
 * carried out of the pay path unchanged; `answer` is the GFY the requester gets.
 */
export class DebitRefusal extends OperationError {
  constructor(
    readonly answer: DebitAnswer,
    readonly reason: 'denied' | 'expired' | 'budget',
  ) {
    super(reason === 'budget' ? 'limit_exceeded' : 'forbidden', `debit refused: ${String(answer.error)}`)
  }
}

/**
 * The GFY for a payment the wallet refused or the node failed. Refusals that say something about the user's
 * wallet (balance, lock) are a plain denial: the requester is a third party.
 */
export function gfyFor(err: unknown): DebitAnswer {
  if (err instanceof DebitRefusal) return err.answer
  if (!isOperationError(err)) return gfy(2)
  switch (err.code) {
    case 'invalid_input':
      return gfy(6, { error: `${gfyText[6]}: ${err.message}` })
    case 'node_unavailable':
    case 'upstream_failed':
      return gfy(2)
    default:
      return gfy(1)
  }
}

/** Sends the requester of a parked request (already taken off the list) its answer. */
export function answerParked(box: ClinkSender, parked: ParkedRequest, payload: DebitAnswer, log: Logger): void {
  if (!box.send({ appId: parked.appId, to: parked.requester, kind: clinkDebitKind, replyTo: parked.requestId, payload })) {
    log.warn({ requestId: parked.requestId }, 'a debit answer was not sent: its app no longer exists')
  }
}
