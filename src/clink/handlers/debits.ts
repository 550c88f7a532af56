// The user operations that steer debits: list the grants and bans, edit a
// grant's rules, ban or forget a key, and decide a parked request — deny it, pay its invoice once, or grant the key
// under rules (and pay the invoice the answer names under them).
import type { Logger } from 'pino'
import { OperationError, type Clock, type HandlerTable } from '../../bus/index.js'
import type { ClinkSender } from '../wire.js'
import { answerParked as sendAnswer, ok, type DebitAnswer } from '../debit-answers.js'
import { gfy } from '../gfy.js'
import { expiredAnswer, type DebitExpiry } from '../debit-expiry.js'
import { rulesFromWire, rulesToWire } from '../debit-rules.js'
import { rulesOf, type DebitStore, type ParkedRequest } from '../debit-store.js'
import type { DebitPaid, DebitPayer } from '../debit-payer.js'

export interface DebitHandlerDeps {
  store: DebitStore
  payer: DebitPayer
  outbox(): ClinkSender | undefined
  expiry: DebitExpiry
  clock: Clock
  log: Logger
}

const hexKey = /^[0-9a-f]{64}$/

function requesterKey(npub: string): string {
  const key = npub.trim().toLowerCase()
  if (!hexKey.test(key)) throw new OperationError('invalid_input', 'npub must be a 64-character hex public key')
  return key
}

export function debitHandlers({ store, payer, outbox, expiry, clock, log }: DebitHandlerDeps): HandlerTable {
  const currentOutbox = () => {
    const box = outbox()
    if (!box) throw new OperationError('node_unavailable', 'the relays are not connected; try again')
    return box
  }

  const answerParked = (box: ClinkSender, parked: ParkedRequest, payload: DebitAnswer) => sendAnswer(box, parked, payload, log)

  /** The outcome of a payment the user decided: the requester hears it; a refusal is also the user's error. */
  const finish = (box: ClinkSender, parked: ParkedRequest, paid: DebitPaid) => {
    if (paid.status === 'later') return
    answerParked(box, parked, paid.answer)
    if (paid.status === 'refused') {
      throw paid.error instanceof OperationError ? paid.error : new OperationError('upstream_failed', 'the payment failed')
    }
  }

  /**
   * The parked request `requestId` of this user from `requester`, taken off the list: of two decisions arriving
   * together only one acts on it (the other finds nothing pending). One whose time ran out before the sweep came
   * is answered GFY 3 here and refused to the user: nothing the user decides applies to it any more.
   */
  const takeParked = async (box: ClinkSender, requestId: string, userId: string, requester: string) => {
    const parked = await store.parked(requestId, userId)
    if (!parked || parked.requester !== requester || !(await store.unpark(requestId))) return undefined
    if (expiry.isExpired(parked)) {
      answerParked(box, parked, expiredAnswer(parked, clock.now()))
      throw expiredError()
    }
    return parked
  }
  const expiredError = () =>
    new OperationError('not_found', 'this debit request expired before it was decided (the requester was told); nothing was changed')

  return {
    GetDebitAuthorizations: async (_input, ctx) => ({
      debits: (await store.accessOfUser(ctx.caller.userId)).map(row => ({
        debit_id: String(row.serial),
        authorized: row.authorized === 1,
        npub: row.requester,
        rules: rulesToWire(rulesOf(row)),
      })),
    }),

    EditDebit: async (input, ctx) => {
      const requester = requesterKey(input.authorize_npub)
      if (!(await store.editRules(ctx.caller.userId, requester, rulesFromWire(input.rules), clock.now()))) {
        throw new OperationError('not_found', 'Debit does not exist')
      }
      return {}
    },

    BanDebit: async (input, ctx) => {
      const requester = requesterKey(input.npub)
      await store.ban(ctx.caller.userId, requester, clock.now())
      // What the banned key still waits for is denied now rather than left hanging.
      const box = outbox()
      if (box) {
        for (const parked of await store.parkedFrom(ctx.caller.userId, requester)) {
          if (await store.unpark(parked.requestId)) answerParked(box, parked, expiry.isExpired(parked) ? expiredAnswer(parked, clock.now()) : gfy(1))
        }
      }
      return {}
    },

    ResetDebit: async (input, ctx) => {
      await store.reset(ctx.caller.userId, requesterKey(input.npub))
      return {}
    },

    RespondToDebit: async (input, ctx) => {
      const { userId } = ctx.caller
      if (input.request_id === '' || input.npub === '') throw new OperationError('invalid_input', 'request_id and npub are required')
      const requester = requesterKey(input.npub)
      const response = input.response
      const rules = response.type === 'authorize' ? rulesFromWire(response.authorize.rules) : undefined
      const invoice = response.type === 'invoice' ? response.invoice.trim() : undefined
      if (invoice === '') throw new OperationError('invalid_input', 'invoice is required')
      const box = currentOutbox()
      const parked = await takeParked(box, input.request_id, userId, requester)
      if (response.type === 'authorize') {
        // The grant stands on its own; the parked request (if any) is answered under it.
        await store.grant(userId, requester, rules!, clock.now())
        const toPay = response.authorize.invoice?.trim()
        if (!parked && toPay) {
          throw new OperationError('not_found', 'the key is granted, but no debit request with this id from it is pending: the invoice was not paid')
        }
        if (!parked) return {}
        if (!toPay) return answerParked(box, parked, ok()), {}
        finish(box, parked, await payer.pay({ userId, requester, appId: parked.appId, requestId: parked.requestId, invoice: toPay, mode: 'rules' }))
        return {}
      }
      if (!parked) throw new OperationError('not_found', 'no pending debit request with this id from this key (answered, expired or never made)')
      if (response.type === 'denied') {
        answerParked(box, parked, gfy(1))
        return {}
      }
      finish(box, parked, await payer.pay({ userId, requester, appId: parked.appId, requestId: parked.requestId, invoice: invoice!, mode: 'approved' }))
      return {}
    },
  }
}
