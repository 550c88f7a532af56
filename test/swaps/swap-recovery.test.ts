// Swaps across a crash and across time: a transaction swap paid when the daemon dies is claimed after the restart
// from the provider's status (the preimage and key were stored before paying), and the user is debited exactly
// once; quotes past their timeout block are removed and can no longer be paid.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { bytesToHex } from '@noble/hashes/utils.js'
import { startSwapWorld, outsideAddress, until, type SwapWorld } from './swap-harness.js'
import type { FakeReverseSwap, FakeSubmarineSwap } from '../support/fake-boltz/swap-terms.js'
import { assertAuditClean } from '../support/money.js'

const s = suite('swap recovery')
let world: SwapWorld

s.before(async () => {
  // The provider locks (and pays) only when the test says so: the daemon can die in between.
  world = await startSwapWorld({ providers: [{ autoLockup: false, autoPay: false }], fundSats: 60_000 })
})
s.after(async () => {
  await world?.close()
})

s('a swap paid before a crash is claimed after the restart, and the user pays once', async () => {
  const provider = world.providers[0]!
  const before = await world.balance()
  const { quotes } = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 25_000 })
  const quote = quotes[0]
  const address = outsideAddress()
  const paying = world
    .userCall('/api/user/chain/pay', { address, amountSats: 25_000, satsPerVByte: 0, swap_operation_id: quote.swap_operation_id })
    .catch(() => undefined) // the daemon dies while this waits
  const swap = () => [...provider.swaps.values()].find((x): x is FakeReverseSwap => x.kind === 'reverse' && x.onchainAmount === 25_200)!
  await until(() => swap()?.status === 'invoice.pending', 'the HTLC to reach the provider')
  assert.is(await world.balance(), before - quote.invoice_amount_sats - quote.service_fee_sats, 'debited while in flight')

  await world.daemon.kill()
  await paying
  provider.lockup(swap().id) // the provider locks while the daemon is down
  await world.restart()

  await until(() => provider.broadcasts.some(b => b.swapId === swap().id), 'the resumed claim')
  const claim = provider.broadcasts.find(b => b.swapId === swap().id)!
  assert.is(claim.path, 'key')
  const hash = bytesToHex(swap().preimageHash)
  await until(() => world.lnd.node.payments.get(hash)?.status === 'SUCCEEDED', 'the hold invoice to settle')
  await until(async () => {
    const listed = await world.userCall('/api/user/swap/transaction/list')
    return listed.swaps[0]?.tx_id === claim.txid && listed.swaps[0].operation_payment?.paidAtUnix > 0
  }, 'the swap and its payment to be final')
  assert.is(await world.balance(), before - quote.invoice_amount_sats - quote.service_fee_sats, 'debited once, not refunded')
  await assertAuditClean(world.daemon.dataDir)
})

s('an invoice swap funded before a crash is completed after the restart: the claim is co-signed then', async () => {
  const provider = world.providers[0]!
  const quote = (await world.adminCall('/api/admin/swap/invoice/quote', { amount_sats: 40_000 })).quotes[0]
  const paid = await world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: quote.swap_operation_id })
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  const swap = [...provider.swaps.values()].find((x): x is FakeSubmarineSwap => x.kind === 'submarine' && x.address === quote.address)!
  await until(() => swap.status === 'transaction.mempool', 'the provider to see the lockup')

  await world.daemon.kill()
  provider.payInvoice(swap.id) // paid while the daemon is down; the provider now waits for our partial signature
  assert.is(swap.status, 'transaction.claim.pending')
  await world.restart()

  await until(() => swap.claimedCooperatively === true, 'the co-signed claim after the restart')
  await until(async () => {
    const listed = await world.adminCall('/api/admin/swap/invoice/list')
    return listed.swaps.find((x: any) => x.quote.swap_operation_id === quote.swap_operation_id)?.completed_at_unix > 0
  }, 'the swap to be completed')
  await assertAuditClean(world.daemon.dataDir)
})

s('a quote past its timeout block is removed and cannot be paid', async () => {
  const { quotes } = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 3_000 })
  const quote = quotes[0]
  const invoiceQuote = (await world.adminCall('/api/admin/swap/invoice/quote', { amount_sats: 3_000 })).quotes[0]
  const has = async () =>
    (await world.userCall('/api/user/swap/transaction/list')).swaps.some((x: any) => x.quote.swap_operation_id === quote.swap_operation_id)
  assert.ok(await has())
  while (world.lnd.node.blockHeight() < quote.expires_at_block_height) world.lnd.node.mine()
  await until(async () => !(await has()), 'the expired quote to be removed')
  const invoiceSwaps = await world.adminCall('/api/admin/swap/invoice/list')
  assert.not.ok(invoiceSwaps.swaps.some((x: any) => x.quote.swap_operation_id === invoiceQuote.swap_operation_id), 'invoice quote removed')
  const paid = await world.userCall('/api/user/chain/pay', {
    address: outsideAddress(),
    amountSats: 3_000,
    satsPerVByte: 0,
    swap_operation_id: quote.swap_operation_id,
  })
  assert.is(paid.status, 'ERROR')
  assert.match(paid.reason, /no transaction swap quote with this swap_operation_id \(quotes are removed once they expire\)/)
  const before = world.lnd.node.payments.inFlight().length
  assert.is(before, 0)
})

s.run()
