// A crash campaign on the real Lightning network: B pays users, users pay B through R and pay each other, and in
// the middle of that load the daemon is SIGKILLed, A's LND is SIGKILLed, btcd stops answering (a btcd restarted on
// regtest deletes its chain, so its outage is a SIGSTOP and a SIGCONT), and finally the daemon and A's LND go down
// together; users go on paying B while each fault lasts. After each round everything is let settle (nothing pending
// in the books, nothing in flight at LND, but for a payment LND itself holds in flight for good after its own crash,
// which must then be pending in the books) and the books are held against LND's own records on A: every payment LND
// sent is debited once and settled or refunded as LND decided, with LND's routing fee; every invoice LND settled is
// credited once; every client's answer agrees with how its payment ended; `relaypay audit` is clean; and the wallets
// together hold, to the msat, what LND received for them less what it sent and paid in fees. After the last round,
// no payment of a valid invoice may have been refused as invalid. The seed is printed; CHAOS_SEED replays the load's
// amounts, payers and moments (the network's own timing varies).
// Runs on the newest LND version of the run only.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { assertAuditClean } from '../support/money.js'
import { onRegtestNetworks, type Regtest } from '../support/regtest/index.js'
import { createCrashWorld, networkHealed, prepareRound, probeAfterFault, resendUnanswered, runRound, type CrashWorld, type Op, type RoundLoad } from './lnd-crash-world.js'
import { disagreements, heldInFlightByLnd, lndNetMsat, lndRecordsOfA, pendingDebitsMsat, readBooks, stillMoving, summary, validInvoicesCalledInvalid } from './lnd-crash-reconcile.js'
import { chaosSeed, seededRandom } from './seeded-random.js'

const userCount = 4
const load: RoundLoad = { incoming: 4, outgoing: 5, refusedByB: 2, internal: 4, windowMs: 4_000 }
/** A payment whose HTLC was cut by a restart can take LND a while to resolve on a loaded machine. */
const settleLimitMs = 180_000
/**
 * How long a payment must stay in flight at LND with no HTLC on A's channels, its network healed, before the campaign
 * takes it for one LND will never end (heldInFlightByLnd); a payment LND is retrying shows an HTLC or ends sooner.
 */
const heldForGoodAfterMs = 30_000

interface Fault {
  name: string
  strike(world: CrashWorld): Promise<void>
}

const faults: Fault[] = [
  { name: 'a SIGKILL of the daemon', strike: world => world.crash() },
  { name: "a SIGKILL of A's LND", strike: world => world.net.restart('A', 'SIGKILL') },
  { name: 'btcd stalled (SIGSTOP) for the length of the load', strike: world => world.net.stallBtcd(load.windowMs) },
  { name: "a SIGKILL of the daemon, then of A's LND while the daemon is down", strike: world => world.crash(() => world.net.restart('A', 'SIGKILL')) },
]

/** Since when each payment has been in flight at LND with no HTLC on A's channels and pending in the books. */
const heldSince = new Map<string, number>()

/**
 * Waits until nothing moves any more (but payments LND holds in flight for good), then until the books agree with
 * LND; fails naming what does not. Answers what the records held.
 */
async function reconcile(world: CrashWorld, when: string): Promise<string> {
  const { net } = world
  await net.waitFor(`${when}: every payment to end`, async () => {
    const [lnd, books] = await Promise.all([lndRecordsOfA(net), readBooks(world.dataDir, world.appId)])
    const held = heldInFlightByLnd(lnd, books)
    for (const hash of heldSince.keys()) if (!held.has(hash)) heldSince.delete(hash)
    for (const hash of held) if (!heldSince.has(hash)) heldSince.set(hash, Date.now())
    const forGood = new Set([...heldSince].filter(([, since]) => Date.now() - since >= heldForGoodAfterMs).map(([hash]) => hash))
    const moving = stillMoving(lnd, books, forGood)
    if (moving.length > 0) throw new Error(moving.join('; '))
    for (const hash of forGood) process.stdout.write(`    ${when}: payment ${hash} is in flight at LND with no HTLC on A's channels; pending in the books\n`)
    return true
  }, settleLimitMs)
  // A settlement LND made a moment ago may still be on its way to the daemon: wait for agreement, not for a guess.
  const [lnd, books] = await net.waitFor(`${when}: the books to agree with LND`, async () => {
    const records = await lndRecordsOfA(net)
    const booked = await readBooks(world.dataDir, world.appId)
    const problems = disagreements(world.ops, records, booked)
    if (problems.length > 0) throw new Error(problems.join('; '))
    return [records, booked] as const
  }, 60_000)
  const report = await assertAuditClean(world.dataDir)
  assert.is(
    report.walletsTotalMsat,
    lndNetMsat(lnd) - pendingDebitsMsat(books),
    `${when}: the wallets hold what LND received for them less what it sent and what is still debited for payments in flight (msat)`,
  )
  const systemAccounts = Object.fromEntries(Object.entries(report.systemAccounts).filter(([, msat]) => msat !== 0))
  assert.equal(systemAccounts, { 'system:lightning': -report.walletsTotalMsat }, `${when}: no money outside the wallets but LND's`)
  return summary(lnd, books)
}

/** What the clients of a round were told, counted: "3× OK, 1× B: FAILED (…), 2× no answer". */
function answers(ops: Op[]): string {
  const counts = new Map<string, number>()
  for (const op of ops) {
    const said = op.kind === 'incoming' ? `B: ${op.paidByB}` : op.answer === undefined ? 'no answer' : op.answer.status === 'OK' ? 'OK' : `"${op.answer.reason}"`
    counts.set(said, (counts.get(said) ?? 0) + 1)
  }
  return [...counts].map(([said, n]) => `${n}× ${said}`).join(', ')
}

function campaign(net: Regtest): void {
  const seed = chaosSeed(53)
  const test = suite(`crashes under load on a real LND ${net.lndVersion} (seed ${seed})`)
  let world: CrashWorld | undefined

  test.after(async () => {
    await world?.close()
  })

  test(`${faults.length} rounds of faults under mixed load: the books agree with LND to the msat after each`, async () => {
    const random = seededRandom(seed)
    const started = Date.now()
    world = await createCrashWorld(net, userCount)
    await reconcile(world, 'after the funding')
    for (const [index, fault] of faults.entries()) {
      const round = index + 1
      const roundStarted = Date.now()
      const ops = await prepareRound(world, random, load, round)
      const faultAt = await runRound(world, random, ops, load.windowMs, () => fault.strike(world!))
      const when = `round ${round}, ${fault.name} ${faultAt} ms into the load (seed ${seed})`
      await resendUnanswered(world, ops)
      await networkHealed(net)
      await probeAfterFault(world, round, fault.name)
      const held = await reconcile(world, when)
      process.stdout.write(`    ${when}: ${answers(ops)}; ${held}; ${Math.round((Date.now() - roundStarted) / 1000)} s\n`)
    }
    process.stdout.write(`    ${world.ops.length} operations in ${Math.round((Date.now() - started) / 1000)} s\n`)
    // Checked once every round has run, so that a wrong word does not hide what later rounds would find of the money.
    assert.equal(validInvoicesCalledInvalid(world.ops), [], 'payments of valid invoices refused as invalid while a fault lasted')
  })

  test.run()
}

await onRegtestNetworks('chaos/lnd-crash.regtest', campaign)
