// The hot standby on a real Lightning network: two daemons on one PostgreSQL and on LND node A, one active and one
// waiting. Under load (B paying users' invoices, users paying B through R, users paying each other) the active one
// is killed with SIGKILL and the standby must serve a request within 10 s. LND is the witness afterwards: every
// invoice A settled is credited once, every payment A sent is debited once and settled or refunded as LND decided,
// payments between users never reach LND, every request answered OK is in the books, and the audit of the
// PostgreSQL books is clean. Then invoices are paid while no daemon holds the books (the active one killed, the
// standby frozen): the standby credits each once when it takes over.
// Runs on the newest LND version of the run only.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import pg from 'pg'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { cliPath, startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { balanceOf, call, ok } from '../support/money.js'
import { createDatabase, dropDatabase, postgresSkipReason, testPostgres, type TestPostgres } from '../support/postgres.js'
import { logPostgresSkipped } from '../support/sql-engines.js'
import { onRegtestNetworks, type Regtest } from '../support/regtest/index.js'
import { until } from '../support/until.js'

/** From the active daemon's death to the standby answering a user's request: the bound the standby promises. */
const takeoverWithinMs = 10_000
/** Requests of each kind answered OK before the kill and again after the takeover: the load the kill lands in. */
const acknowledgedEachSide = 2
const fundingSats = 300_000
const jwtSecret = 'standby-lnd-regtest-secret-0123456789abcd'
/** The active-daemon lock's advisory key: PostgreSQL shows it as classid/objid in pg_locks. */
const activeLockKey = [0x72706179, 2]

// Both daemons name the PostgreSQL of this file: the store switch changes nothing here.
delete process.env.RELAYPAY_TEST_STORE

type Kind = 'from B' | 'to B' | 'between users'
type Phase = 'funding' | 'before the kill' | 'after the kill' | 'while none was active'
interface User {
  identifier: string
  bearer: string
}
/** One payment the test asked for, and what it was told. */
interface Sent {
  kind: Kind
  phase: Phase
  payer?: User
  payee?: User
  request: string
  sats: number
  /** The payer's PayInvoice: 'sent' while unanswered. A 'from B' invoice was answered OK when it was made. */
  answer: 'sent' | 'ok' | 'error' | 'no answer'
  reply?: any
  /** What B's `lncli payinvoice` said ('from B'), once it returned. */
  paidByB?: string
}
interface Op {
  paidAtUnix: number
  amount: number
  identifier: string
  service_fee: number
}

const run = promisify(execFile)
const sum = (list: number[]) => list.reduce((a, b) => a + b, 0)
const fromStart = (() => {
  const zero = { ts: 0, id: 0 }
  return {
    latestIncomingInvoice: zero, latestOutgoingInvoice: zero, latestIncomingTx: zero, latestOutgoingTx: zero,
    latestIncomingUserToUserPayment: zero, latestOutgoingUserToUserPayment: zero, max_size: 0,
  }
})()

function standbyOnRealLnd(net: Regtest, postgres: TestPostgres): void {
  const test = suite(`hot standby on a real LND ${net.lndVersion}: kill -9 of the active daemon under load`)
  const config = jwtSecretConfig(jwtSecret) + net.nodeConfig()
  const started: TestDaemon[] = []
  const sent: Sent[] = []
  let url: string
  let appToken: string
  let users: User[]
  /** Where the load's requests go: the active daemon, and from the kill on the standby (a load balancer's view). */
  let serving: TestDaemon
  let firstActive: TestDaemon
  let successor: TestDaemon

  const daemonOn = async (opts: { untilProbes?: boolean; dataDir?: string } = {}) => {
    const daemon = await startDaemon({ config, env: { RELAYPAY_STORE_URL: url, RELAYPAY_STORE_STANDBY: 'true' }, mock: false, ...opts })
    started.push(daemon)
    return daemon
  }
  const waitsAsStandby = (daemon: TestDaemon) =>
    until(async () => (await daemon.request('GET', '/readyz')).json?.checks?.start?.detail?.startsWith('standby') === true, 'a daemon to wait as the standby')
  /** What the daemons logged about losing the lock by themselves (their lease heartbeat runs on the main thread). */
  const lockLosses = () => started.flatMap(d => d.logs().split('\n').filter(line => /lost the active-daemon lock|no heartbeat answered/.test(line)))
  /** Fails at once, with the daemon's words, when the one serving gave its lock up on its own: no test waits that out. */
  const noLockLost = () => {
    const losses = lockLosses()
    if (losses.length > 0) throw new Error(`a daemon lost the active-daemon lock by itself:\n${losses.join('\n')}`)
  }
  const lockHolders = async () => {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      const { rows } = await admin.query(
        `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
          WHERE d.datname = current_database() AND l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2`,
        activeLockKey,
      )
      return rows.length
    } finally {
      await admin.end()
    }
  }

  async function send(path: string, user: User, body: unknown): Promise<{ answer: 'ok' | 'error' | 'no answer'; reply: any }> {
    try {
      const reply = await call(serving, path, user.bearer, body)
      return { answer: reply?.status === 'OK' ? 'ok' : 'error', reply }
    } catch (err) {
      return { answer: 'no answer', reply: String(err) } // the daemon died under the request, or was already gone
    }
  }
  /** A user's invoice paid by B; undefined when the daemon did not hand the invoice out. */
  async function paidByB(payee: User, sats: number, phase: Phase): Promise<Sent | undefined> {
    const made = await send('/api/user/invoice/new', payee, { amountSats: sats, memo: 'from B' })
    if (made.answer !== 'ok') return undefined
    const item: Sent = { kind: 'from B', phase, payee, request: made.reply.invoice, sats, answer: 'ok' }
    sent.push(item)
    item.paidByB = await net.pay('B', item.request).then(paid => paid.status, err => `lncli failed: ${String(err)}`)
    return item
  }
  async function paying(item: Sent): Promise<Sent> {
    sent.push(item)
    const paid = await send('/api/user/invoice/pay', item.payer!, { invoice: item.request, amount: 0 })
    item.answer = paid.answer
    item.reply = paid.reply
    return item
  }
  const phaseNow = (): Phase => (serving === firstActive ? 'before the kill' : 'after the kill')
  const load: Record<Kind, (n: number) => Promise<boolean>> = {
    'from B': async n => (await paidByB(users[n % 3]!, 2_000 + n, phaseNow()))?.paidByB === 'SUCCEEDED',
    'to B': async n => {
      const { paymentRequest } = await net.addInvoice('B', 1_000 + n)
      return (await paying({ kind: 'to B', phase: phaseNow(), payer: users[n % 3]!, request: paymentRequest, sats: 1_000 + n, answer: 'sent' })).answer === 'ok'
    },
    'between users': async n => {
      const [payer, payee] = [users[n % 3]!, users[(n + 1) % 3]!]
      const phase = phaseNow()
      const made = await send('/api/user/invoice/new', payee, { amountSats: 500 + n, memo: 'between users' })
      if (made.answer !== 'ok') return false
      return (await paying({ kind: 'between users', phase, payer, payee, request: made.reply.invoice, sats: 500 + n, answer: 'sent' })).answer === 'ok'
    },
  }
  const kinds = Object.keys(load) as Kind[]
  const acknowledged = (kind: Kind, phase: Phase) =>
    sent.filter(s => s.kind === kind && s.phase === phase && (kind === 'from B' ? s.paidByB === 'SUCCEEDED' : s.answer === 'ok')).length

  /**
   * The books against LND and against what the test was told, once every payment has ended at LND and in the books:
   * each item applied at most once, as LND decided, each one answered OK applied, nothing else in the books, the
   * balances the sum of their operations, the audit clean.
   */
  async function checkBooks(daemon: TestDaemon): Promise<void> {
    const history = async (user: User) => {
      const reply = await ok(daemon, '/api/user/operations', user.bearer, fromStart)
      return { incoming: reply.latestIncomingInvoiceOperations.operations as Op[], outgoing: reply.latestOutgoingInvoiceOperations.operations as Op[] }
    }
    type LndPayment = { payment_hash: string; payment_request: string; status: string }
    type LndInvoice = { payment_request: string; state: string; amt_paid_sat: string }
    // LND settles and pays on its own time, and the daemon credits what A settled from its stream: wait until nothing
    // is on its way, then every count below is final.
    let onItsWay = ''
    const { histories, payments, settledAtA } = await net
      .waitFor('every payment ended and every invoice A settled credited', async () => {
        const payments = (await net.lncli<{ payments: LndPayment[] }>('A', ['listpayments', '--include_incomplete'])).payments
        const invoices = (await net.lncli<{ invoices: LndInvoice[] }>('A', ['listinvoices', '--max_invoices=100000'])).invoices
        const settledAtA = new Map(invoices.filter(i => i.state === 'SETTLED').map(i => [i.payment_request, Number(i.amt_paid_sat)]))
        const histories = new Map(await Promise.all(users.map(async user => [user, await history(user)] as const)))
        onItsWay = [
          ...payments.filter(p => p.status !== 'SUCCEEDED' && p.status !== 'FAILED').map(p => `LND paying ${p.payment_hash} (${p.status})`),
          ...[...histories].flatMap(([user, h]) => h.outgoing.filter(op => op.paidAtUnix === 0).map(op => `${user.identifier} paying ${op.amount} sats`)),
          ...sent
            .filter(s => s.kind === 'from B' && settledAtA.has(s.request) && !histories.get(s.payee!)!.incoming.some(op => op.identifier === s.request))
            .map(s => `${s.payee!.identifier}'s ${s.sats} sats settled at A (${s.phase})`),
        ].join('; ')
        return onItsWay ? undefined : { histories, payments, settledAtA }
      })
      .catch((err: Error) => {
        throw new Error(`${err.message}; still on its way: ${onItsWay}`)
      })
    const opsOf = (user: User, side: 'incoming' | 'outgoing', request: string) => histories.get(user)![side].filter(op => op.identifier === request)

    for (const item of sent) {
      const what = `${item.kind} ${item.sats} sats (${item.phase}, answered ${item.answer}${item.paidByB ? `, B: ${item.paidByB}` : ''})`
      if (item.kind === 'from B') {
        const credits = opsOf(item.payee!, 'incoming', item.request)
        assert.is(credits.length, settledAtA.has(item.request) ? 1 : 0, `${what}: credited as A settled it`)
        if (item.paidByB === 'SUCCEEDED') {
          assert.is(settledAtA.get(item.request), item.sats, `${what}: settled at A`)
          assert.equal(credits.map(op => op.amount), [item.sats], `${what}: credited once`)
        }
      } else if (item.kind === 'to B') {
        const atLnd = payments.filter(p => p.payment_request === item.request)
        assert.ok(atLnd.length <= 1, `${what}: sent to LND ${atLnd.length} times`)
        const debits = opsOf(item.payer!, 'outgoing', item.request)
        // The history leaves refunded payments out: what stays is what LND paid, once.
        assert.is(debits.length, atLnd[0]?.status === 'SUCCEEDED' ? 1 : 0, `${what}: debited as LND decided (${atLnd[0]?.status ?? 'never sent'})`)
        if (item.answer === 'ok') assert.is(atLnd[0]?.status, 'SUCCEEDED', `${what}: acknowledged, so paid`)
      } else {
        const debits = opsOf(item.payer!, 'outgoing', item.request)
        const credits = opsOf(item.payee!, 'incoming', item.request)
        assert.ok(debits.length <= 1 && debits.length === credits.length, `${what}: ${debits.length} debits, ${credits.length} credits`)
        if (item.answer === 'ok') assert.is(debits.length, 1, `${what}: acknowledged, so in the books`)
        assert.not.ok(settledAtA.has(item.request) || payments.some(p => p.payment_request === item.request), `${what}: reached LND`)
      }
      if (item.answer === 'ok' && item.kind !== 'from B') {
        assert.is(opsOf(item.payer!, 'outgoing', item.request)[0]!.service_fee, item.reply.service_fee, `${what}: the fee it was told`)
      }
    }
    // Nothing at LND or in the books that the test did not ask for.
    const requests = new Set(sent.map(s => s.request))
    for (const request of settledAtA.keys()) assert.ok(requests.has(request), `A settled an invoice nobody paid: ${request}`)
    for (const p of payments) assert.ok(requests.has(p.payment_request), `A sent a payment nobody asked for: ${p.payment_hash}`)
    for (const [user, h] of histories) {
      for (const op of [...h.incoming, ...h.outgoing]) assert.ok(requests.has(op.identifier), `${user.identifier}: an operation nobody asked for`)
      // Each credit and debit once: the balance is exactly what the operations add up to.
      const expected = sum(h.incoming.map(op => op.amount)) - sum(h.outgoing.map(op => op.amount + op.service_fee))
      assert.is(await balanceOf(daemon, appToken, user.identifier), expected, `${user.identifier}'s balance`)
    }
    const audited = await run(process.execPath, [cliPath, 'audit', '--store-url', url, '--json']).catch(err => err as { stdout: string })
    assert.ok(JSON.parse(audited.stdout).ok, `audit of the PostgreSQL books: ${audited.stdout}`)
  }

  // In a test, not a before hook: uvu drops the error of a failed hook without a word.
  test('one daemon serves and the other waits as its standby; B funds three users through the active one', async () => {
    url = await createDatabase(postgres.adminUrl)
    firstActive = serving = await daemonOn()
    successor = await daemonOn({ untilProbes: true })
    await waitsAsStandby(successor)
    const owner = await createAppWithUser(firstActive, { jwtSecret, identifier: 'user-0' })
    appToken = owner.appToken
    const others = await Promise.all(
      ['user-1', 'user-2'].map(identifier => addAppUser(firstActive, { appToken, appId: owner.appId, jwtSecret, identifier })),
    )
    users = [owner, ...others].map(u => ({ identifier: u.identifier, bearer: `Bearer ${u.userToken}` }))
    for (const user of users) assert.is((await paidByB(user, fundingSats, 'funding'))?.paidByB, 'SUCCEEDED')
    await until(async () => (await Promise.all(users.map(u => balanceOf(firstActive, appToken, u.identifier)))).every(b => b === fundingSats), 'the funding to be credited', 120_000)
    noLockLost()
  })
  test.after(async () => {
    const losses = lockLosses()
    if (losses.length > 0) console.log(`  a daemon lost the active-daemon lock by itself:\n${losses.join('\n')}`)
    for (const daemon of started) {
      if (daemon.process.exitCode !== null || daemon.process.signalCode !== null) continue
      daemon.process.kill('SIGCONT') // one frozen by a failed case
      await daemon.stop()
    }
    if (url) await dropDatabase(postgres.adminUrl, url)
  })

  test('kill -9 of the active daemon under load: the standby serves within 10 s; nothing acknowledged lost, nothing applied twice', async () => {
    let stopping = false
    let failure: unknown
    let tookOver!: () => void
    const takenOver = new Promise<void>(resolve => (tookOver = resolve))
    const running = Promise.all(
      kinds.map(async kind => {
        for (let n = 0; !stopping; n++) {
          if (await load[kind](n)) continue
          // Refused or unanswered: the active daemon died under it, or the standby is not serving yet.
          if (serving === firstActive) throw new Error(`${kind} failed before the kill: ${JSON.stringify(sent.filter(s => s.kind === kind).at(-1))}`)
          await takenOver
        }
      }),
    ).catch(err => {
      failure = err
    })
    const loadFailed = () => {
      noLockLost()
      if (failure) throw failure
    }
    // Killed while payments are on their way: at least one payment unanswered at that moment.
    await until(
      () => (loadFailed(), kinds.every(k => acknowledged(k, 'before the kill') >= acknowledgedEachSide) && sent.some(s => s.answer === 'sent')),
      'the load to be under way',
      180_000,
    )
    const unansweredAtKill = sent.filter(s => (s.kind === 'from B' ? s.paidByB === undefined : s.answer === 'sent')).length
    const killedAt = Date.now()
    serving = successor
    await firstActive.kill()
    await until(async () => (noLockLost(), (await send('/api/user/info', users[0]!, {})).answer === 'ok'), 'the standby to serve a request', 120_000)
    const servedAfterMs = Date.now() - killedAt
    tookOver()
    console.log(`  kill -9 of the active daemon to the standby's first answer: ${servedAfterMs} ms (${unansweredAtKill} payments unanswered at the kill)`)
    await until(() => (loadFailed(), kinds.every(k => acknowledged(k, 'after the kill') >= acknowledgedEachSide)), 'the load to go on on the standby', 120_000)
    stopping = true
    await running
    loadFailed()
    const paid = sent.filter(s => s.kind !== 'from B')
    const refusals = [...new Set(paid.filter(s => s.answer === 'error').map(s => s.reply?.reason))]
    console.log(
      `  ${sent.length - paid.length} invoices paid by B, ${paid.length} payments by users: ${paid.filter(s => s.answer === 'ok').length} answered OK, ` +
        `${paid.filter(s => s.answer === 'no answer').length} unanswered, refused: ${JSON.stringify(refusals)}`,
    )

    await checkBooks(successor)
    noLockLost()
    assert.ok(servedAfterMs <= takeoverWithinMs, `the standby served ${servedAfterMs} ms after the kill`)
  })

  test('invoices B pays while no daemon holds the books are credited once each by the standby that takes over', async () => {
    // The killed daemon comes back as the standby, and freezes (a slow host) while the active one dies.
    const frozen = await daemonOn({ untilProbes: true, dataDir: firstActive.dataDir })
    await waitsAsStandby(frozen)
    const made = await Promise.all(users.map((user, i) => send('/api/user/invoice/new', user, { amountSats: 3_000 + i, memo: 'while none is active' })))
    frozen.process.kill('SIGSTOP')
    await successor.kill()
    await net.waitFor('the active-daemon lock to be free', async () => ((await lockHolders()) === 0 ? true : undefined))
    for (const [i, user] of users.entries()) {
      assert.is(made[i]!.answer, 'ok', JSON.stringify(made[i]!.reply))
      const item: Sent = { kind: 'from B', phase: 'while none was active', payee: user, request: made[i]!.reply.invoice, sats: 3_000 + i, answer: 'ok' }
      sent.push(item)
      item.paidByB = (await net.pay('B', item.request)).status
      assert.is(item.paidByB, 'SUCCEEDED')
    }
    assert.is(await lockHolders(), 0, 'a daemon held the books while B paid')
    frozen.process.kill('SIGCONT')
    await frozen.waitUntilServing(120_000)
    serving = frozen
    await checkBooks(frozen)
    noLockLost()
  })

  test.run()
}

const postgres = await testPostgres()
if (!postgres) {
  const skipped = suite('lifecycle/standby-lnd.regtest on PostgreSQL')
  skipped('SKIPPED: no PostgreSQL server', () => logPostgresSkipped(postgresSkipReason))
  skipped.run()
} else {
  await onRegtestNetworks('lifecycle/standby-lnd.regtest', net => standbyOnRealLnd(net, postgres))
  const closing = suite('the PostgreSQL of this file')
  closing.after(() => postgres.close())
  closing.run()
}
