// A transaction swap reveals its preimage (claim) only for a lockup our own node has seen confirmed: not while the
// lockup sits in the mempool, not because the provider says "confirmed", and not after a restart forgets the
// wait. A provider trusted with zero_conf is claimed from the mempool. A lockup that never confirms leaves the
// swap unclaimed until its timeout: the swap fails with the reason and the user's payment fails back.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { bytesToHex } from '@noble/hashes/utils.js'
import { startSwapWorld, outsideAddress, until, type SwapWorld } from './swap-harness.js'
import type { FakeBoltz } from '../support/fake-boltz/fake-boltz.js'
import type { FakeReverseSwap } from '../support/fake-boltz/swap-terms.js'
import { assertAuditClean } from '../support/money.js'

const s = suite('transaction swaps wait for a confirmed lockup')
let world: SwapWorld

s.before(async () => {
  // providers[0] honest, [1] says "confirmed" for a lockup it never broadcasts, [2] trusted with zero_conf.
  world = await startSwapWorld({
    providers: [{}, { lieAboutConfirmation: true }, { zeroConf: true }],
    fundSats: 200_000,
    autoMine: false,
    payWaitSeconds: 10,
  })
})
s.after(async () => {
  await world?.close()
})

const [honest, liar, trusted] = [0, 1, 2].map(i => () => world.providers[i]!)

/** Quotes `amountSats` and starts PayAddress with `provider`'s quote; the answer comes later. */
async function startPaying(provider: FakeBoltz, amountSats: number) {
  const quoted = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: amountSats })
  assert.is(quoted.status, 'OK', JSON.stringify(quoted))
  const quote = quoted.quotes.find((q: any) => q.service_url === provider.url)
  const address = outsideAddress()
  const answer = world.userCall('/api/user/chain/pay', { address, amountSats, satsPerVByte: 0, swap_operation_id: quote.swap_operation_id })
  const swap = () =>
    [...provider.swaps.values()].find((x): x is FakeReverseSwap => x.kind === 'reverse' && x.onchainAmount === amountSats + 200 && !!x.lockup)
  await until(() => !!swap(), 'the provider to lock the coins')
  return { quote, address, answer, swap: swap()! }
}

const claimRequests = (provider: FakeBoltz, swap: FakeReverseSwap) => provider.requests.filter(r => r === `POST /v2/swap/reverse/${swap.id}/claim`)
const registrations = (txid: string) => world.lnd.node.chain.registrations.filter(r => r.txid === txid).length
const listed = async (id: string) => (await world.userCall('/api/user/swap/transaction/list')).swaps.find((x: any) => x.quote.swap_operation_id === id)

function assertNothingRevealed(provider: FakeBoltz, swap: FakeReverseSwap) {
  assert.is(claimRequests(provider, swap).length, 0, 'no cooperative claim asked: the preimage stays ours')
  assert.is(swap.preimage, undefined, 'the provider does not know the preimage')
  assert.not.ok(provider.broadcasts.some(b => b.swapId === swap.id), 'no claim broadcast')
  assert.is(world.lnd.node.payments.get(bytesToHex(swap.preimageHash))?.status, 'IN_FLIGHT', 'the hold invoice is not settled')
}

s('a lockup only in the mempool is not claimed; once our node sees it in a block, it is', async () => {
  const before = await world.balance()
  const asked = Date.now()
  const { quote, answer, swap } = await startPaying(honest(), 20_000)
  const lockup = swap.lockup!.txid
  assert.ok(world.lnd.node.chain.inMempool(lockup))
  await until(() => registrations(lockup) === 1, 'the daemon to ask its node about the lockup')
  assertNothingRevealed(honest(), swap)

  const paid = await answer
  assert.is(paid.status, 'ERROR')
  assert.match(paid.reason, `waits for a confirmation of the provider's lockup ${lockup} on our node`)
  // Answered after pay_wait_seconds (10 here), not after the node's own 50 s wait for the held payment.
  assert.ok(Date.now() - asked < 40_000, `answered after ${Date.now() - asked} ms`)
  assertNothingRevealed(honest(), swap)
  const waiting = await listed(quote.swap_operation_id)
  assert.ok(waiting.quote.paid_at_unix > 0)
  assert.not.ok(waiting.tx_id)
  assert.not.ok(waiting.failure_reason)

  world.lnd.node.mine()
  await until(() => honest().broadcasts.some(b => b.swapId === swap.id), 'the claim after the confirmation')
  assert.is(honest().broadcasts.find(b => b.swapId === swap.id)!.path, 'key')
  assert.is(claimRequests(honest(), swap).length, 1)
  const hash = bytesToHex(swap.preimageHash)
  await until(() => world.lnd.node.payments.get(hash)?.status === 'SUCCEEDED', 'the hold invoice to settle')
  await until(async () => (await listed(quote.swap_operation_id)).operation_payment?.paidAtUnix > 0, 'the payment to be final')
  assert.is((await listed(quote.swap_operation_id)).tx_id, honest().broadcasts.find(b => b.swapId === swap.id)!.txid)
  assert.is(await world.balance(), before - quote.invoice_amount_sats - quote.service_fee_sats)
  await assertAuditClean(world.daemon.dataDir)
})

s('a provider trusted with zero_conf is claimed from the mempool at once', async () => {
  const { answer, swap } = await startPaying(trusted(), 15_000)
  const paid = await answer
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  const claim = trusted().broadcasts.find(b => b.swapId === swap.id)
  assert.is(claim?.txid, paid.txId)
  assert.ok(world.lnd.node.chain.inMempool(swap.lockup!.txid), 'claimed while the lockup was unconfirmed')
  assert.is(registrations(swap.lockup!.txid), 0, 'no confirmation asked for')
  await until(() => world.lnd.node.payments.get(bytesToHex(swap.preimageHash))?.status === 'SUCCEEDED', 'the hold invoice to settle')
  world.lnd.node.mine() // the lockup and the claim confirm: nothing left in the mempool for the next cases
  await assertAuditClean(world.daemon.dataDir)
})

s('a restart while waiting for the confirmation waits again, and the swap is claimed exactly once', async () => {
  const before = await world.balance()
  const { quote, answer, swap } = await startPaying(honest(), 12_000)
  answer.catch(() => undefined) // the daemon dies while this waits
  const lockup = swap.lockup!.txid
  await until(() => registrations(lockup) === 1, 'the daemon to wait for the lockup')

  await world.daemon.kill()
  await answer.catch(() => undefined)
  await world.restart()
  await until(() => registrations(lockup) >= 2, 'the restarted daemon to wait for the lockup again')
  assertNothingRevealed(honest(), swap)

  world.lnd.node.mine()
  await until(() => honest().broadcasts.some(b => b.swapId === swap.id), 'the claim after the restart')
  await until(() => world.lnd.node.payments.get(bytesToHex(swap.preimageHash))?.status === 'SUCCEEDED', 'the hold invoice to settle')
  await until(async () => (await listed(quote.swap_operation_id)).operation_payment?.paidAtUnix > 0, 'the payment to be final')
  // Both the resumed wait and the provider's re-sent status lead to the claim: it is built and sent once.
  assert.is(claimRequests(honest(), swap).length, 1, 'one cooperative claim')
  assert.is(honest().broadcasts.filter(b => b.swapId === swap.id).length, 1, 'one claim broadcast')
  assert.is(await world.balance(), before - quote.invoice_amount_sats - quote.service_fee_sats, 'debited once')
  await assertAuditClean(world.daemon.dataDir)
})

s('a provider that says "confirmed" for a lockup our node never saw gets no claim; at the timeout the user is refunded', async () => {
  const before = await world.balance()
  const { quote, answer, swap } = await startPaying(liar(), 10_000)
  assert.is(swap.status, 'transaction.confirmed', 'the provider claims the lockup confirmed')
  const lockup = swap.lockup!.txid
  assert.is(world.lnd.node.chain.txs.has(lockup), false, 'our node never saw it')
  await until(() => registrations(lockup) === 1, 'the daemon to ask its node about the lockup')
  assertNothingRevealed(liar(), swap)
  const paid = await answer
  assert.is(paid.status, 'ERROR')
  assert.match(paid.reason, `waits for a confirmation of the provider's lockup ${lockup}`)
  assert.is(await world.balance(), before - quote.invoice_amount_sats - quote.service_fee_sats, 'debited while in flight')

  // Blocks pass without the lockup, up to the swap's timeout: the provider fails the held HTLC back.
  while (world.lnd.node.blockHeight() < swap.timeoutBlockHeight) world.lnd.node.mine()
  await until(async () => !!(await listed(quote.swap_operation_id)).failure_reason, 'the swap to fail')
  const failed = await listed(quote.swap_operation_id)
  assert.match(failed.failure_reason, `the provider's lockup ${lockup} was not confirmed on our node before block ${swap.timeoutBlockHeight - 3}`)
  assert.match(failed.failure_reason, 'the preimage was never revealed, so the Lightning payment fails back')
  assert.not.ok(failed.tx_id)
  await until(async () => (await world.balance()) === before, 'the failed payment to be refunded')
  assert.is(claimRequests(liar(), swap).length, 0, 'never a cooperative claim')
  assert.is(swap.preimage, undefined, 'the preimage never reached the provider')
  assert.not.ok(liar().broadcasts.some(b => b.swapId === swap.id), 'never a claim broadcast')
  assert.is(world.lnd.node.payments.get(bytesToHex(swap.preimageHash))?.status, 'FAILED')
  await assertAuditClean(world.daemon.dataDir)
})

s.run()
