// The world of the crash campaign on the real network: one daemon on LND node A (test mode off), an app with a few
// users funded by B paying their invoices (real money from outside), and the load of one round — B paying users'
// invoices, users paying B's invoices through R, users paying each other — each operation started at a random
// moment of a short window while a fault strikes at another, and users paying B for as long as the fault lasts.
// Every operation and the answer its client got (or that it got none) is kept, for the reconciliation against LND's
// own records (lnd-crash-reconcile.ts).
import { decode } from 'light-bolt11-decoder'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { audit, call, ok } from '../support/money.js'
import { until } from '../support/until.js'
import type { Regtest } from '../support/regtest/index.js'
import { seededRandom, type SeededRandom } from './seeded-random.js'

const jwtSecret = 'lnd-crash-regtest-secret-0123456789abcdef'
/** What B pays each user before the first round. */
const fundingSats = 200_000
/** A restart of the daemon on a loaded 2-core machine, with LND to connect to and pending payments to resolve. */
const startTimeoutMs = 90_000
/** The daemon's answers that leave a payment's outcome open: LND may still pay it, or the daemon died answering. */
export const outcomeUnknown = /not known yet|still in flight|outcome is unknown/

export interface Wallet {
  identifier: string
  userId: string
  /** `Bearer <user token>`. */
  auth: string
}

/** What a client was told: the daemon's status and reason, or nothing (the request died with the daemon). */
export type Answer = { status: 'OK' } | { status: 'ERROR'; reason: string } | undefined

interface OpBase {
  invoice: string
  paymentHash: string
  sats: number
  round: number
}

/** B pays a user's invoice; `paidByB` is what B's lncli said (a status, or its error). */
export type Incoming = OpBase & { kind: 'incoming'; payee: Wallet; paidByB?: string }
/** A user pays an invoice of B (through R) or of another user; `resent` is the answer to the client's retry. */
export type Outgoing = OpBase & { kind: 'outgoing'; payer: Wallet; answer?: Answer; resent?: Answer }
export type Internal = OpBase & { kind: 'internal'; payer: Wallet; payee: Wallet; answer?: Answer; resent?: Answer }
export type Op = Incoming | Outgoing | Internal

export interface RoundLoad {
  incoming: number
  outgoing: number
  /** Payments of invoices B has cancelled: LND sends them and B fails them, so they end refunded. */
  refusedByB: number
  internal: number
  /** How long the operations are spread over (ms). */
  windowMs: number
}

export interface CrashWorld {
  readonly net: Regtest
  readonly daemon: TestDaemon
  readonly dataDir: string
  readonly appId: string
  readonly users: Wallet[]
  /** Every operation of every round, funding included. */
  readonly ops: Op[]
  /** SIGKILLs the daemon; `whileDown` runs before it starts again, on the same data dir. */
  crash(whileDown?: () => Promise<void>): Promise<void>
  close(): Promise<void>
}

const paymentHashOf = (invoice: string): string =>
  (decode(invoice).sections.find(s => s.name === 'payment_hash') as { value: string }).value

/** The daemon's answer to a payment, as its client saw it; undefined when the request got no answer. */
async function payAnswer(daemon: TestDaemon, payer: Wallet, invoice: string): Promise<Answer> {
  try {
    const reply = await call(daemon, '/api/user/invoice/pay', payer.auth, { invoice, amount: 0 })
    if (reply?.status === 'OK') return { status: 'OK' }
    if (reply?.status === 'ERROR') return { status: 'ERROR', reason: String(reply.reason) }
    return undefined
  } catch {
    return undefined // the connection died with the daemon
  }
}

async function newInvoice(daemon: TestDaemon, payee: Wallet, sats: number, memo: string): Promise<{ invoice: string; paymentHash: string }> {
  const { invoice } = await ok(daemon, '/api/user/invoice/new', payee.auth, { amountSats: sats, memo })
  return { invoice, paymentHash: paymentHashOf(invoice) }
}

/** B pays `op`'s invoice and records what its lncli said (for a failure, with the reason B's records give). */
async function payFromB(net: Regtest, op: Incoming): Promise<void> {
  try {
    op.paidByB = (await net.pay('B', op.invoice)).status
  } catch (err) {
    const { payments } = await net.lncli<{ payments: { payment_hash: string; status: string; failure_reason: string }[] }>('B', ['listpayments', '--include_incomplete'])
    const atB = payments.find(p => p.payment_hash === op.paymentHash)
    op.paidByB = atB ? `${atB.status} (${atB.failure_reason})` : `error: ${(err as Error).message.split('\n')[0]}`
  }
}

/**
 * The outside world pays again after a fault: R's channel to A is active on R's side too, and A and B forget the
 * failures they saw meanwhile. LND's mission control would otherwise keep avoiding the only route between them for
 * up to an hour (its penalty half-life) and fail every payment with no route: true of LND, not of relaypay, and the
 * next round's load would not get through.
 */
export async function networkHealed(net: Regtest): Promise<void> {
  await net.waitFor("R's channel with A to be active", async () => {
    const { channels } = await net.lncli<{ channels: { remote_pubkey: string; active: boolean }[] }>('R', ['listchannels'])
    return channels.some(c => c.remote_pubkey === net.node('A').pubkey && c.active) ? true : undefined
  })
  await Promise.all([net.lncli('A', ['resetmc']), net.lncli('B', ['resetmc'])])
}

export async function createCrashWorld(net: Regtest, userCount: number): Promise<CrashWorld> {
  const config = jwtSecretConfig(jwtSecret) + net.nodeConfig()
  let daemon = await startDaemon({ config, mock: false, startTimeoutMs })
  const dataDir = daemon.dataDir
  const first = await createAppWithUser(daemon, { jwtSecret, identifier: 'lnd-crash-0' })
  const users: Wallet[] = [{ identifier: first.identifier, userId: first.userId, auth: `Bearer ${first.userToken}` }]
  for (let i = 1; i < userCount; i++) {
    const made = await addAppUser(daemon, { appToken: first.appToken, appId: first.appId, jwtSecret, identifier: `lnd-crash-${i}` })
    users.push({ identifier: made.identifier, userId: made.userId, auth: `Bearer ${made.userToken}` })
  }
  const ops: Op[] = []
  for (const payee of users) {
    const made = await newInvoice(daemon, payee, fundingSats, 'funding')
    const funding: Incoming = { kind: 'incoming', payee, sats: fundingSats, round: 0, ...made }
    ops.push(funding)
    await payFromB(net, funding)
    assert.is(funding.paidByB, 'SUCCEEDED', `B funding ${payee.identifier}`)
  }
  const world: CrashWorld = {
    net,
    get daemon() {
      return daemon
    },
    dataDir,
    appId: first.appId,
    users,
    ops,
    async crash(whileDown) {
      await daemon.kill()
      // The books the crash left audit clean (read as an operator would, beside the start that audits them too).
      const [books] = await Promise.all([audit(dataDir), whileDown?.()])
      assert.ok(books.ok, `relaypay audit of the books the kill left: ${JSON.stringify(books, null, 2)}`)
      daemon = await startDaemon({ config, dataDir, mock: false, startTimeoutMs })
      await until(() => /ledger audit clean/.test(daemon.logs()), "the restarted daemon's own audit", 10_000)
    },
    async close() {
      await daemon.stop()
    },
  }
  return world
}

/**
 * The operations of one round, made before its window: users' invoices for B and for each other, B's for users (and
 * some that B cancels at once).
 */
export async function prepareRound(world: CrashWorld, random: SeededRandom, load: RoundLoad, round: number): Promise<Op[]> {
  const { net, users } = world
  const d = world.daemon
  const anyone = () => users[random.below(users.length)]!
  const other = (than: Wallet) => users.filter(u => u !== than)[random.below(users.length - 1)]!
  const incoming = Array.from({ length: load.incoming }, async (): Promise<Op> => {
    const payee = anyone()
    const sats = random.between(1_000, 20_000)
    return { kind: 'incoming', payee, sats, round, ...(await newInvoice(d, payee, sats, `round ${round} from B`)) }
  })
  const outgoing = Array.from({ length: load.outgoing }, async (): Promise<Op> => {
    const payer = anyone()
    const sats = random.between(1_000, 8_000)
    const { paymentRequest, paymentHash } = await net.addInvoice('B', sats, `round ${round} to B`)
    return { kind: 'outgoing', payer, sats, round, invoice: paymentRequest, paymentHash }
  })
  const refusedByB = Array.from({ length: load.refusedByB }, async (): Promise<Op> => {
    const payer = anyone()
    const sats = random.between(1_000, 8_000)
    const { paymentRequest, paymentHash } = await net.addInvoice('B', sats, `round ${round} cancelled by B`)
    await net.lncli('B', ['cancelinvoice', paymentHash])
    return { kind: 'outgoing', payer, sats, round, invoice: paymentRequest, paymentHash }
  })
  const internal = Array.from({ length: load.internal }, async (): Promise<Op> => {
    const payer = anyone()
    const payee = other(payer)
    const sats = random.between(500, 5_000)
    return { kind: 'internal', payer, payee, sats, round, ...(await newInvoice(d, payee, sats, `round ${round} internal`)) }
  })
  const made = await Promise.all([...incoming, ...outgoing, ...refusedByB, ...internal])
  world.ops.push(...made)
  return made
}

const at = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/**
 * Runs the round's operations, each at its own random moment of the window, and `fault` at another moment inside
 * it, while a user goes on paying B throughout the fault (those payments join `ops`); resolves once the fault is
 * over and every operation has its answer (or certainly has none).
 */
export async function runRound(world: CrashWorld, random: SeededRandom, ops: Op[], windowMs: number, fault: () => Promise<void>): Promise<number> {
  const send = async (op: Op) => {
    await at(random.below(windowMs))
    if (op.kind === 'incoming') return payFromB(world.net, op)
    op.answer = await payAnswer(world.daemon, op.payer, op.invoice)
  }
  // The fault lands while the load runs: after its first fifth, before its end.
  const faultAt = Math.floor(windowMs * (0.2 + 0.6 * random.next()))
  const round = ops[0]!.round
  // Its own sequence: how many payments fit in the fault depends on the machine, and must not shift the next rounds'.
  const duringFault = seededRandom(random.seed + round)
  const load = ops.map(send)
  await at(faultAt)
  ops.push(...(await payingThroughout(world, duringFault, round, fault)))
  await Promise.all(load)
  return faultAt
}

/** Payments one fault may meet at most (each on a new invoice of B, a fifth of a second apart). */
const paymentsDuringFault = 12

/**
 * Runs `strike` while users keep paying B, one new invoice after another, until the fault is over: payments that
 * meet LND down or still starting, btcd stalled, or the daemon dead. Answers the payments made.
 */
async function payingThroughout(world: CrashWorld, random: SeededRandom, round: number, strike: () => Promise<void>): Promise<Outgoing[]> {
  const made: Outgoing[] = []
  let over = false
  const paying = (async () => {
    while (!over && made.length < paymentsDuringFault) {
      const payer = world.users[random.below(world.users.length)]!
      const sats = random.between(1_000, 3_000)
      const { paymentRequest, paymentHash } = await world.net.addInvoice('B', sats, `round ${round} during the fault`)
      const op: Outgoing = { kind: 'outgoing', payer, sats, round, invoice: paymentRequest, paymentHash }
      made.push(op)
      world.ops.push(op)
      op.answer = await payAnswer(world.daemon, payer, paymentRequest)
      await at(200)
    }
  })()
  try {
    await strike()
  } finally {
    over = true
  }
  await paying
  return made
}

/**
 * A client that got no answer (the daemon died under its request) sends the same payment again, as a real one
 * would: the daemon must tell it what happened the first time, never pay twice.
 */
export async function resendUnanswered(world: CrashWorld, ops: Op[]): Promise<void> {
  await Promise.all(
    ops.map(async op => {
      if (op.kind === 'incoming' || op.answer !== undefined) return
      op.resent = await payAnswer(world.daemon, op.payer, op.invoice)
    }),
  )
}

/**
 * After a fault: the daemon still takes money in and sends it out. B pays a new invoice and a user pays B, each
 * answered as succeeded; their credit and debit are checked with everything else by the reconciliation.
 */
export async function probeAfterFault(world: CrashWorld, round: number, what: string): Promise<void> {
  const [payee, payer] = [world.users[0]!, world.users[1]!]
  const sats = 777
  const incoming: Incoming = { kind: 'incoming', payee, sats, round, ...(await newInvoice(world.daemon, payee, sats, `probe after ${what}`)) }
  const { paymentRequest, paymentHash } = await world.net.addInvoice('B', sats, `probe after ${what}`)
  const outgoing: Outgoing = { kind: 'outgoing', payer, sats, round, invoice: paymentRequest, paymentHash }
  world.ops.push(incoming, outgoing)
  await payFromB(world.net, incoming)
  assert.is(incoming.paidByB, 'SUCCEEDED', `after ${what}: B pays a user's new invoice`)
  outgoing.answer = await payAnswer(world.daemon, payer, paymentRequest)
  assert.equal(outgoing.answer, { status: 'OK' }, `after ${what}: a user pays B`)
}
