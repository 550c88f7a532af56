// The crash campaign's oracle: the books (read-only, in one snapshot) against LND's own records on A. LND is the
// witness of what really moved: every payment it sent is one debit in the books, settled when LND says it
// succeeded (with the routing fee LND reports) and refunded otherwise; every invoice it settled is credited once,
// to the user who made it, with what was paid; every answer a client got agrees with how its payment ended; and
// every balance is what those outcomes make it, to the msat.
import { withBooks } from '../support/books.js'
import type { Regtest } from '../support/regtest/index.js'
import { feeSats } from './chaos-world.js'
import { outcomeUnknown, type Answer, type Op } from './lnd-crash-world.js'

interface LndPayment {
  payment_hash: string
  value_msat: string
  fee_msat: string
  status: string
  failure_reason: string
  /** Its attempts: IN_FLIGHT, SUCCEEDED or FAILED each. */
  htlcs?: { status: string }[]
}

interface LndInvoice {
  r_hash: string
  state: string
  amt_paid_msat: string
}

export interface LndRecords {
  payments: Map<string, LndPayment>
  invoices: Map<string, LndInvoice>
  /** The payment hashes of the HTLCs on A's channels now, either way. */
  htlcsOnChannels: Set<string>
}

interface BookPayment {
  serial: number
  payment_hash: string
  user_id: string
  amount_msat: number
  service_fee_msat: number
  routing_fee_msat: number | null
  internal: number
  status: 'pending' | 'succeeded' | 'failed'
  failure_reason: string | null
}

interface BookInvoice {
  payment_hash: string
  user_id: string
  paid_msat: number | null
  paid_internally: number | null
}

export interface Books {
  payments: BookPayment[]
  invoices: Map<string, BookInvoice>
  /** Every wallet's stored balance (msat), by user id. */
  balances: Map<string, number>
  /** The app owner's wallet: it collects the service fees. */
  ownerId: string
}

const alreadyPaid = 'this invoice was already paid'
const serviceFeeMsat = (sats: number) => feeSats(sats) * 1000

/** A's payments (failed and in-flight ones too), invoices and the HTLCs on its channels, by payment hash. */
export async function lndRecordsOfA(net: Regtest): Promise<LndRecords> {
  const [{ payments }, { invoices }, { channels }] = await Promise.all([
    net.lncli<{ payments: LndPayment[] }>('A', ['listpayments', '--include_incomplete', '--max_payments=1000000']),
    net.lncli<{ invoices: LndInvoice[] }>('A', ['listinvoices', '--max_invoices=1000000']),
    net.lncli<{ channels: { pending_htlcs?: { hash_lock: string }[] }[] }>('A', ['listchannels']),
  ])
  return {
    payments: new Map(payments.map(p => [p.payment_hash, p])),
    invoices: new Map(invoices.map(i => [i.r_hash, i])),
    htlcsOnChannels: new Set(channels.flatMap(c => (c.pending_htlcs ?? []).map(h => h.hash_lock))),
  }
}

/** The payments, invoices and balances in one read-only snapshot (safe while the daemon runs). */
export function readBooks(dataDir: string, appId: string): Promise<Books> {
  return withBooks(
    dataDir,
    books =>
      books.transaction(
        async tx => ({
          payments: await tx.many<BookPayment>(
            `SELECT serial, payment_hash, user_id, amount_msat, service_fee_msat, routing_fee_msat, internal, status, failure_reason
             FROM payments ORDER BY serial`,
          ),
          invoices: new Map(
            (await tx.many<BookInvoice>('SELECT payment_hash, user_id, paid_msat, paid_internally FROM invoices')).map(i => [i.payment_hash, i]),
          ),
          balances: new Map((await tx.many<{ id: string; balance_msat: number }>('SELECT id, balance_msat FROM users')).map(u => [u.id, u.balance_msat])),
          ownerId: (await tx.one<{ owner_user_id: string }>('SELECT owner_user_id FROM apps WHERE id = ?', [appId]))!.owner_user_id,
        }),
        { readOnly: true, isolation: 'repeatable read' },
      ),
    { readonly: true },
  )
}

/**
 * Payments LND holds in flight with no HTLC on any of A's channels, that the books hold pending. An LND killed
 * between recording a payment's attempt and handing it to its channel keeps that attempt in flight for good: the
 * attempt never reached a peer, so nothing will ever answer for it, and every start resumes it to wait again (LND's
 * own open bug, seen on v0.21.2 after a SIGKILL under load). Pending is then the only true state for the books:
 * LND may not have sent it, but it says it might still, so neither a refund nor a settlement is safe. The campaign
 * accepts such a payment once it has stayed so for a while with A's channels up, and holds its debit to the money.
 */
export function heldInFlightByLnd(lnd: LndRecords, books: Books): Set<string> {
  const pending = new Set(books.payments.filter(p => p.status === 'pending').map(p => p.payment_hash))
  return new Set(
    [...lnd.payments.values()]
      .filter(p => p.status === 'IN_FLIGHT' && pending.has(p.payment_hash) && !lnd.htlcsOnChannels.has(p.payment_hash))
      .map(p => p.payment_hash),
  )
}

/**
 * What is still moving: payments pending in the books or in flight at LND, HTLCs A holds for an invoice; `stuck`
 * (payments LND will not end, see heldInFlightByLnd) left out.
 */
export function stillMoving(lnd: LndRecords, books: Books, stuck: ReadonlySet<string> = new Set()): string[] {
  const attempts = (p: LndPayment) => (p.htlcs ?? []).map(h => h.status).join(', ') || 'none'
  return [
    ...books.payments.filter(p => p.status === 'pending' && !stuck.has(p.payment_hash)).map(p => `payment ${p.serial} (${p.payment_hash}) pending in the books`),
    ...[...lnd.payments.values()]
      .filter(p => (p.status === 'IN_FLIGHT' || p.status === 'INITIATED') && !stuck.has(p.payment_hash))
      .map(p => `payment ${p.payment_hash} ${p.status} at LND (attempts: ${attempts(p)}; ${lnd.htlcsOnChannels.has(p.payment_hash) ? 'an' : 'no'} HTLC on A's channels)`),
    ...[...lnd.invoices.values()].filter(i => i.state === 'ACCEPTED').map(i => `invoice ${i.r_hash} ACCEPTED at LND`),
  ]
}

/** What the books hold back for payments still pending (amount + service fee, msat): debited, neither paid nor refunded. */
export function pendingDebitsMsat(books: Books): number {
  return books.payments.filter(p => p.status === 'pending').reduce((sum, p) => sum + p.amount_msat + p.service_fee_msat, 0)
}

/** Money in and out as LND recorded it (msat): what all wallets together must hold. */
export function lndNetMsat(lnd: LndRecords): number {
  let net = 0
  for (const i of lnd.invoices.values()) if (i.state === 'SETTLED') net += Number(i.amt_paid_msat)
  for (const p of lnd.payments.values()) if (p.status === 'SUCCEEDED') net -= Number(p.value_msat) + Number(p.fee_msat)
  return net
}

/** What the records hold, for the campaign's output: proof that the oracle had something to hold against. */
export function summary(lnd: LndRecords, books: Books): string {
  const count = <T>(items: Iterable<T>, test: (item: T) => boolean) => [...items].filter(test).length
  const failed = books.payments.filter(p => p.status === 'failed')
  return (
    `LND settled ${count(lnd.invoices.values(), i => i.state === 'SETTLED')} invoices, paid ${count(lnd.payments.values(), p => p.status === 'SUCCEEDED')}` +
    ` and failed ${count(lnd.payments.values(), p => p.status === 'FAILED')} payments` +
    ` (${count(lnd.payments.values(), p => p.status === 'IN_FLIGHT')} in flight for good); the books refunded ${failed.length}` +
    ` (${count(failed, p => !lnd.payments.has(p.payment_hash))} never sent) and paid ${count(books.payments, p => p.internal === 1)} internally`
  )
}

/** Every disagreement between the operations, the books and LND's records; empty when they all agree. */
export function disagreements(ops: Op[], lnd: LndRecords, books: Books): string[] {
  const problems: string[] = []
  const opOf = new Map(ops.map(op => [op.paymentHash, op]))
  const attemptsOf = new Map<string, BookPayment[]>()
  for (const p of books.payments) attemptsOf.set(p.payment_hash, [...(attemptsOf.get(p.payment_hash) ?? []), p])
  const expected = new Map<string, number>()
  const move = (userId: string, msat: number) => expected.set(userId, (expected.get(userId) ?? 0) + msat)
  // Every wallet of the campaign is checked, also one that nothing moved.
  for (const op of ops) {
    move(op.kind === 'incoming' ? op.payee.userId : op.payer.userId, 0)
    if (op.kind === 'internal') move(op.payee.userId, 0)
  }
  move(books.ownerId, 0)

  // Payments: each hash's attempts in the books against LND's one record of it.
  for (const [hash, attempts] of attemptsOf) {
    const op = opOf.get(hash)
    const internal = attempts.some(a => a.internal === 1)
    if (!op || op.kind === 'incoming' || (op.kind === 'internal') !== internal) {
      problems.push(`the books hold ${internal ? 'an internal' : 'a'} payment of ${hash} that no client asked for as such`)
      continue
    }
    for (const a of attempts) {
      if (a.user_id !== op.payer.userId) problems.push(`payment ${a.serial} (${hash}) is charged to ${a.user_id}, not to its payer ${op.payer.identifier}`)
      if (a.amount_msat !== op.sats * 1000 || a.service_fee_msat !== serviceFeeMsat(op.sats)) {
        problems.push(`payment ${a.serial} (${hash}) debits ${a.amount_msat} + fee ${a.service_fee_msat} msat for ${op.sats} sat + fee ${feeSats(op.sats)} sat`)
      }
    }
    const succeeded = attempts.filter(a => a.status === 'succeeded')
    const sent = lnd.payments.get(hash)
    if (op.kind === 'internal') {
      if (sent) problems.push(`internal payment ${hash} was sent by LND (${sent.status})`)
      continue
    }
    if (sent?.status === 'SUCCEEDED') {
      if (succeeded.length !== 1) problems.push(`LND paid ${hash}; the books settle ${succeeded.length} attempts (${attempts.map(a => a.status).join(', ')})`)
      for (const s of succeeded) {
        if (s.routing_fee_msat !== Number(sent.fee_msat)) problems.push(`payment ${s.serial} (${hash}) records routing fee ${s.routing_fee_msat} msat; LND paid ${sent.fee_msat}`)
        if (Number(sent.value_msat) !== s.amount_msat) problems.push(`payment ${s.serial} (${hash}): LND sent ${sent.value_msat} msat for ${s.amount_msat}`)
        // The service fee covers the routing (routing_fee_limit below the service fee), so no operator money is needed.
        if (s.service_fee_msat < Number(sent.fee_msat)) problems.push(`payment ${s.serial} (${hash}): routing ${sent.fee_msat} msat above the service fee`)
      }
    } else if (succeeded.length > 0) {
      problems.push(`the books settle ${hash} (payment ${succeeded[0]!.serial}); LND ${sent ? `says ${sent.status} (${sent.failure_reason})` : 'never sent it'}`)
    }
  }
  for (const [hash, sent] of lnd.payments) {
    if (!attemptsOf.has(hash)) problems.push(`LND sent ${hash} (${sent.status}, ${sent.value_msat} msat) and the books have no debit for it`)
  }

  // Invoices: every settlement LND made is a credit of the invoice's user; no credit from Lightning without one.
  for (const [hash, inv] of lnd.invoices) {
    if (inv.state !== 'SETTLED') continue
    const booked = books.invoices.get(hash)
    const op = opOf.get(hash)
    if (!booked || !op || op.kind === 'outgoing') {
      problems.push(`LND settled invoice ${hash} (${inv.amt_paid_msat} msat) that ${booked ? 'no client made' : 'the books do not hold'}`)
      continue
    }
    move(op.payee.userId, Number(inv.amt_paid_msat))
    if (booked.paid_internally !== 0 || booked.paid_msat !== Number(inv.amt_paid_msat)) {
      problems.push(`LND settled ${hash} for ${inv.amt_paid_msat} msat; the books mark it paid ${booked.paid_msat ?? 'not at all'}${booked.paid_internally ? ' internally' : ''}`)
    } else if (booked.user_id !== op.payee.userId) {
      problems.push(`invoice ${hash} of ${op.payee.identifier} is credited to ${booked.user_id}`)
    }
  }
  for (const [hash, booked] of books.invoices) {
    if (booked.paid_internally === 0 && lnd.invoices.get(hash)?.state !== 'SETTLED') {
      problems.push(`the books credit ${hash} as paid over Lightning; LND says ${lnd.invoices.get(hash)?.state ?? 'nothing of it'}`)
    }
  }

  // What each client was told, against how its payment ended; and what the outcomes make every balance.
  for (const op of ops) {
    const said = `${op.kind} ${op.paymentHash} of round ${op.round} (answered ${show(op.kind === 'incoming' ? op.paidByB : op.answer)}${op.kind !== 'incoming' && op.resent ? `, again ${show(op.resent)}` : ''})`
    if (op.kind === 'incoming') {
      if (op.paidByB === 'SUCCEEDED' && lnd.invoices.get(op.paymentHash)?.state !== 'SETTLED') problems.push(`${said}: LND does not show it settled`)
      continue
    }
    const toldPaid = op.answer?.status === 'OK' || op.resent?.status === 'OK' || (op.resent?.status === 'ERROR' && op.resent.reason === alreadyPaid)
    const toldFailed = op.answer?.status === 'ERROR' && !outcomeUnknown.test(op.answer.reason)
    const paid =
      op.kind === 'outgoing'
        ? lnd.payments.get(op.paymentHash)?.status === 'SUCCEEDED'
        : (attemptsOf.get(op.paymentHash) ?? []).some(a => a.status === 'succeeded') && books.invoices.get(op.paymentHash)?.paid_internally === 1
    if (toldPaid && !paid) problems.push(`${said}: told paid, but it was not`)
    if (toldFailed && paid) problems.push(`${said}: told it failed, but it was paid`)
    const heldByLnd = op.kind === 'outgoing' && lnd.payments.get(op.paymentHash)?.status === 'IN_FLIGHT'
    if (heldByLnd && (attemptsOf.get(op.paymentHash) ?? []).some(a => a.status === 'pending')) {
      // In flight at LND for good (heldInFlightByLnd): the debit stays, and no client may have been told it failed.
      if (toldFailed) problems.push(`${said}: told it failed, but LND holds it in flight`)
      move(op.payer.userId, -(op.sats * 1000 + serviceFeeMsat(op.sats)))
      continue
    }
    if (op.kind === 'internal' && op.answer === undefined && op.resent?.status === 'ERROR' && op.resent.reason !== alreadyPaid && !outcomeUnknown.test(op.resent.reason)) {
      problems.push(`${said}: the retry of an unanswered internal payment was refused`)
    }
    if (!paid) continue
    const fee = serviceFeeMsat(op.sats)
    if (op.kind === 'outgoing') {
      const sent = lnd.payments.get(op.paymentHash)!
      move(op.payer.userId, -(Number(sent.value_msat) + fee))
      move(books.ownerId, fee - Number(sent.fee_msat))
    } else {
      move(op.payer.userId, -(op.sats * 1000 + fee))
      move(op.payee.userId, op.sats * 1000)
      move(books.ownerId, fee)
    }
  }
  for (const [userId, msat] of expected) {
    const stored = books.balances.get(userId)
    if (stored !== msat) problems.push(`wallet ${userId}${userId === books.ownerId ? ' (the app owner)' : ''} holds ${stored} msat; LND's records and the payments make it ${msat}`)
  }
  return problems
}

/**
 * Payments of B's invoices that a client was told were invalid. Every invoice of B is well formed (a cancelled one is
 * refused by B, in LND's words "incorrect payment details"): a refusal while LND is down or still starting must name
 * the node, so that the client tries again, not the invoice, which the client would throw away.
 */
export function validInvoicesCalledInvalid(ops: Op[]): string[] {
  return ops.flatMap(op =>
    op.kind === 'outgoing'
      ? [op.answer, op.resent].flatMap(a => (a?.status === 'ERROR' && /invalid/i.test(a.reason) ? [`${op.paymentHash} (round ${op.round}): "${a.reason}"`] : []))
      : [],
  )
}

const show = (answer: Answer | string | undefined) =>
  answer === undefined ? 'nothing' : typeof answer === 'string' ? answer : answer.status === 'OK' ? 'OK' : `ERROR "${answer.reason}"`
