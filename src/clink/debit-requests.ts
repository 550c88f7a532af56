// A kind-21002 debit request, in the order upstream decides it: the pointer names
// the app user (inside the app key the request addressed); a k1 seen in the last five minutes is refused; a budget
// or full-access request is answered "ok" under a grant; a payment request is paid under the grant's rules. A key
// with no grant (or an expired one) is the user's to decide: the request is parked in SQLite and pushed as a
// LiveDebitRequest to the user's linked key, and answered when the user calls RespondToDebit, or GFY 3 once its
// lifetime has passed (debit-expiry.ts). The account's own key needs no grant; an account opened by CLINK enroll
// refuses at once what it would otherwise ask its user about.
import type { Logger } from 'pino'
import { type Clock, type DomainEvent } from '../bus/index.js'
import type { LightningNode } from '../node/index.js'
import type { AppUserRow, Wallet } from '../wallet/index.js'
import type { ClinkAnswer, ClinkRequest } from './wire.js'
import { ok, type DebitAnswer } from './debit-answers.js'
import { gfy } from './gfy.js'
import { expired, intervalOfUnit } from './debit-rules.js'
import { rulesOf, type DebitStore, type ParkedDebit } from './debit-store.js'
import type { DebitPayer } from './debit-payer.js'
import { satsCovering } from '../units/index.js'

export interface DebitRequestDeps {
  store: DebitStore
  payer: DebitPayer
  wallet: Wallet
  node: LightningNode
  emit(event: DomainEvent): void
  clock: Clock
  /** How long a parked request waits for the user's decision (ms). */
  lifetimeMs: number
  log: Logger
}

const isPositiveInt = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0
/** Whether the request comes from the account's own key (the one its wallet is linked to). */
const isOwner = (req: ClinkRequest, appUser: AppUserRow) =>
  appUser.nostr_public_key !== null && appUser.nostr_public_key.toLowerCase() === req.requester.toLowerCase()

export function debitRequests({ store, payer, wallet, node, emit, clock, lifetimeMs, log }: DebitRequestDeps) {
  const answer = (payload: DebitAnswer): ClinkAnswer => ({ payload })

  /** Parks the request for the user's decision; undefined = no answer now. */
  const park = async (req: ClinkRequest, appUser: AppUserRow, debit: ParkedDebit, k1: string | undefined): Promise<ClinkAnswer | undefined> => {
    // Nobody to ask: the decision could never be made. An enrolled account asks nobody about a stranger's key.
    if (!appUser.nostr_public_key || appUser.owner_only_clink === 1) return answer(gfy(1))
    const now = clock.now()
    await store.park({
      requestId: req.id,
      userId: appUser.user_id,
      appId: req.appId,
      requester: req.requester,
      debit,
      k1: k1 ?? null,
      createdAt: now,
      expiresAt: now + lifetimeMs,
    })
    emit({
      type: 'user.push',
      userId: appUser.user_id,
      stream: 'GetLiveDebitRequests',
      payload: { request_id: req.id, npub: req.requester, debit, ...(k1 !== undefined ? { k1 } : {}) },
    })
    log.info({ requestId: req.id, requester: req.requester, debit: debit.type }, 'debit request parked for the user')
    return undefined
  }

  /** Budget and full-access requests: "ok" under a grant, refused under a ban, else the user decides. */
  const accessRequest = async (req: ClinkRequest, appUser: AppUserRow, debit: ParkedDebit, k1: string | undefined) => {
    let row = await store.access(appUser.user_id, req.requester)
    // The account's own key needs no grant; a ban the user gave it still holds.
    if (isOwner(req, appUser)) return answer(row?.authorized === 0 ? gfy(1) : ok())
    if (row?.authorized === 1 && expired(rulesOf(row), clock.now())) {
      // Forgotten only while it is still the expired grant; a decision the user made meanwhile is read again.
      await store.resetExpired(appUser.user_id, req.requester, clock.now())
      row = await store.access(appUser.user_id, req.requester)
      if (row?.authorized === 1 && expired(rulesOf(row), clock.now())) row = undefined
    }
    if (!row) return park(req, appUser, debit, k1)
    return answer(row.authorized === 1 ? ok() : gfy(1))
  }

  const decide = async (req: ClinkRequest): Promise<ClinkAnswer | undefined> => {
    const body = req.body
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return answer(gfy(6))
    const { pointer, amount_sats, bolt11, frequency, k1: k1Field } = body as Record<string, unknown>
    const k1 = k1Field === null ? undefined : k1Field
    if (typeof pointer !== 'string' || pointer === '') return answer(gfy(1))
    const appUser = await wallet.accounts.appUser(pointer)
    if (!appUser || appUser.app_id !== req.appId) return answer(gfy(1))
    if (k1 !== undefined && typeof k1 !== 'string') return answer(gfy(6, { error: 'Invalid Request: k1 must be a string' }))
    if (k1 !== undefined && !(await store.firstK1(appUser.user_id, k1, clock.now()))) return answer(gfy(1, { error: 'K1 already processed' }))
    if (amount_sats !== undefined && amount_sats !== null && !isPositiveInt(amount_sats)) return answer(gfy(5))
    if (bolt11 !== undefined && typeof bolt11 !== 'string') return answer(gfy(6))

    let invoiceMsat: number | undefined
    if (typeof bolt11 === 'string') {
      try {
        invoiceMsat = (await node.decodeInvoice(bolt11.trim())).amountMsat ?? undefined
      } catch {
        return answer(gfy(6, { error: 'Invalid Request: the invoice does not decode' }))
      }
    }

    if (frequency !== undefined && frequency !== null) {
      const f = frequency as Record<string, unknown>
      const interval = typeof f.unit === 'string' ? intervalOfUnit[f.unit] : undefined
      if (typeof f !== 'object' || !isPositiveInt(f.number) || !interval) {
        return answer(gfy(6, { error: 'Invalid Request: frequency needs a positive number and a unit day, week or month' }))
      }
      const amount = isPositiveInt(amount_sats) ? amount_sats : invoiceMsat ? satsCovering(invoiceMsat) : undefined
      if (!amount) return answer(gfy(5))
      return accessRequest(req, appUser, { type: 'frequency', frequency: { number_of_intervals: f.number, interval, amount } }, k1)
    }
    if (bolt11 === undefined && (amount_sats === undefined || amount_sats === null)) {
      return accessRequest(req, appUser, { type: 'full_access', full_access: {} }, k1)
    }
    if (typeof bolt11 !== 'string') return answer(gfy(6, { error: 'Invalid Request: an amount without an invoice' }))
    if (!invoiceMsat) return answer(gfy(6, { error: 'Invalid Request: the invoice has no amount' }))
    if (isPositiveInt(amount_sats) && amount_sats * 1000 !== invoiceMsat) return answer(gfy(5))

    const row = await store.access(appUser.user_id, req.requester)
    // The account's own key pays without a grant, rules or budget (as the user would from the wallet itself).
    const owner = isOwner(req, appUser)
    if (!row && !owner) return park(req, appUser, { type: 'invoice', invoice: bolt11 }, k1)
    if (row?.authorized === 0) return answer(gfy(1))
    const paid = await payer.pay({
      userId: appUser.user_id,
      requester: req.requester,
      appId: req.appId,
      requestId: req.id,
      invoice: bolt11,
      mode: owner ? 'approved' : 'rules',
    })
    return paid.status === 'later' ? undefined : answer(paid.answer)
  }

  return {
    async handle(req: ClinkRequest): Promise<ClinkAnswer | undefined> {
      try {
        return await decide(req)
      } catch (err) {
        log.error({ err, requestId: req.id }, 'debit request failed')
        return answer(gfy(2))
      }
    },
  }
}
