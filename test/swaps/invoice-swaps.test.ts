// Invoice swaps (on-chain → Lightning, the operator's): the node's coins go to a checked lockup address, the
// provider pays the node's invoice and claims with our MuSig2 partial signature; a failed swap is refunded
// cooperatively at once, or through the script path after the timeout when the provider will not help; asking
// for a refund again answers the same transaction.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { hexToBytes } from '@noble/hashes/utils.js'
import { Address, OutScript, Transaction } from '@scure/btc-signer'
import { startSwapWorld, until, type SwapWorld } from './swap-harness.js'
import type { FakeSubmarineSwap } from '../support/fake-boltz/swap-terms.js'
import { assertAuditClean } from '../support/money.js'

const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
const s = suite('invoice swaps')
let world: SwapWorld

s.before(async () => {
  world = await startSwapWorld({ fundSats: 0 })
})
s.after(async () => {
  await world?.close()
})

const provider = () => world.providers[0]!
const submarine = (address: string) =>
  [...provider().swaps.values()].find((x): x is FakeSubmarineSwap => x.kind === 'submarine' && x.address === address)!
const listed = async (id: string) =>
  (await world.adminCall('/api/admin/swap/invoice/list')).swaps.find((x: any) => x.quote.swap_operation_id === id)

async function quote(amountSats: number) {
  const quoted = await world.adminCall('/api/admin/swap/invoice/quote', { amount_sats: amountSats })
  assert.is(quoted.status, 'OK', JSON.stringify(quoted))
  return quoted.quotes[0]
}

s('the operator moves on-chain coins into its channels: lockup sent, invoice paid, claim co-signed', async () => {
  const walletBefore = world.lnd.node.wallet.balances().confirmedSats
  const q = await quote(50_000)
  // Provider fees: 0.1 % + 400 miner fee → the lockup must pay 50 450; the node estimates 282 sats to send it.
  assert.is(q.invoice_amount_sats, 50_000)
  assert.is(q.transaction_amount_sats, 50_450)
  assert.is(q.swap_fee_sats, 450)
  assert.is(q.chain_fee_sats, 282)
  assert.is(q.service_fee_sats, 0)
  assert.is(q.service_url, provider().url)
  assert.match(q.address, /^bcrt1p/)
  assert.is(q.tx_id, '')

  const paid = await world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: q.swap_operation_id })
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  const lockup = world.lnd.node.wallet.tx(paid.tx_id)
  assert.ok(lockup.destAddresses.includes(q.address), 'the node sent to the lockup address')
  assert.is(world.lnd.node.wallet.balances().confirmedSats, walletBefore - 50_450 - lockup.feeSats)

  const swap = submarine(q.address)
  await until(() => swap.claimedCooperatively === true, 'the provider to claim with our partial signature')
  assert.is(world.lnd.node.invoices.lookup(Buffer.from(swap.preimageHash).toString('hex'))?.state, 'SETTLED')
  await until(async () => (await listed(q.swap_operation_id)).completed_at_unix > 0, 'the swap to complete')
  const done = await listed(q.swap_operation_id)
  assert.is(done.quote.tx_id, paid.tx_id)
  assert.ok(done.quote.paid_at_unix > 0)
  assert.not.ok(done.failure_reason)
  const again = await world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: q.swap_operation_id })
  assert.is(again.tx_id, paid.tx_id, 'paying again sends nothing more')
  const list = await world.adminCall('/api/admin/swap/invoice/list')
  assert.is(list.current_block_height, world.lnd.node.blockHeight())
  await assertAuditClean(world.daemon.dataDir)
})

s('a claim whose details the provider failed to give at first is co-signed when asked again', async () => {
  // The provider says `transaction.claim.pending` once; handling it fails twice (its claim details answer 500), and
  // nothing else would come until a restart.
  provider().behaviour.failClaimRequests = 2
  const q = await quote(30_000)
  const paid = await world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: q.swap_operation_id })
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  const swap = submarine(q.address)
  await until(() => swap.claimedCooperatively === true, 'the claim co-signed once the provider answered')
  assert.is(provider().behaviour.failClaimRequests, 0)
  await until(async () => (await listed(q.swap_operation_id)).completed_at_unix > 0, 'the swap to complete')
  await until(() => /invoice swap update not handled; trying again/.test(world.daemon.logs()), 'the retry in the log')
})

s('eight pay calls of one quote at once: the node sends the lockup once', async () => {
  const walletBefore = world.lnd.node.wallet.balances().confirmedSats
  const q = await quote(30_000)
  const pay = () => world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: q.swap_operation_id })
  const answers = await Promise.all(Array.from({ length: 8 }, pay))
  const sent = new Set(answers.filter(a => a.status === 'OK').map(a => a.tx_id))
  assert.is(sent.size, 1, JSON.stringify(answers))
  // A call that reads the swap after the first one took it hears it is being paid, or completed when the provider
  // has claimed the lockup before the first call stored its txid (the test provider claims at once).
  for (const answer of answers.filter(a => a.status !== 'OK')) assert.match(answer.reason, /already (being paid|completed)$/, JSON.stringify(answer))
  const lockup = world.lnd.node.wallet.tx([...sent][0])
  assert.is(world.lnd.node.wallet.balances().confirmedSats, walletBefore - q.transaction_amount_sats - lockup.feeSats)
  await until(async () => (await listed(q.swap_operation_id)).completed_at_unix > 0, 'the swap to complete')
})

s('a failed swap is refunded cooperatively at once, and asking again answers the same refund', async () => {
  provider().behaviour.failSwaps = true
  try {
    const q = await quote(20_000)
    const unpaid = await world.adminCall('/api/admin/swap/invoice/refund', { swap_operation_id: q.swap_operation_id, sat_per_v_byte: 3 })
    assert.match(unpaid.reason, /never paid/)
    const paid = await world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: q.swap_operation_id })
    assert.is(paid.status, 'OK', JSON.stringify(paid))
    await until(async () => /invoice.failedToPay/.test((await listed(q.swap_operation_id)).failure_reason ?? ''), 'the failure')

    const refund = await world.adminCall('/api/admin/swap/invoice/refund', { swap_operation_id: q.swap_operation_id, sat_per_v_byte: 3 })
    assert.is(refund.status, 'OK', JSON.stringify(refund))
    const sent = provider().broadcasts.filter(b => b.txid === refund.tx_id)
    assert.is(sent.length, 1)
    assert.is(sent[0]!.path, 'key', 'key-path refund before the timeout, with the provider')
    const row = await listed(q.swap_operation_id)
    assert.is(row.refund_tx_id, refund.tx_id)
    assert.match(row.refund_address, /^bcrt1q/)
    const tx = Transaction.fromRaw(hexToBytes(sent[0]!.hex), { allowUnknownOutputs: true })
    assert.is(tx.outputsLength, 1)
    assert.equal(tx.getOutput(0).script, OutScript.encode(Address(regtest).decode(row.refund_address)))
    // boltz-core's targetFee counts one spare vbyte per input.
    assert.is(Number(tx.getOutput(0).amount), 20_420 - 3 * (tx.vsize + 1), 'the lockup less 3 sat/vB')
    assert.is(tx.lockTime, 0)

    const twice = await world.adminCall('/api/admin/swap/invoice/refund', { swap_operation_id: q.swap_operation_id, sat_per_v_byte: 9 })
    assert.is(twice.tx_id, refund.tx_id, 'idempotent: the stored refund, not a second one')
    assert.is(provider().refusedBroadcasts.length, 0)
  } finally {
    provider().behaviour.failSwaps = false
  }
})

s('without the provider, the refund waits for the timeout and then takes the script path', async () => {
  provider().behaviour.failSwaps = true
  provider().behaviour.refuseCooperation = true
  try {
    const q = await quote(15_000)
    await world.adminCall('/api/admin/swap/invoice/pay', { swap_operation_id: q.swap_operation_id })
    await until(async () => Boolean((await listed(q.swap_operation_id)).failure_reason), 'the failure')
    const early = await world.adminCall('/api/admin/swap/invoice/refund', { swap_operation_id: q.swap_operation_id, sat_per_v_byte: 2 })
    assert.is(early.status, 'ERROR')
    assert.match(early.reason, new RegExp(`possible from block ${q.expires_at_block_height}`))

    while (world.lnd.node.blockHeight() < q.expires_at_block_height) world.lnd.node.mine()
    const refund = await world.adminCall('/api/admin/swap/invoice/refund', { swap_operation_id: q.swap_operation_id, sat_per_v_byte: 2 })
    assert.is(refund.status, 'OK', JSON.stringify(refund))
    const sent = provider().broadcasts.find(b => b.txid === refund.tx_id)
    assert.is(sent?.path, 'refund-leaf', 'script path: our signature on the refund leaf, lock time at the timeout')
    const tx = Transaction.fromRaw(hexToBytes(sent!.hex), { allowUnknownOutputs: true })
    assert.is(tx.lockTime, q.expires_at_block_height)
  } finally {
    provider().behaviour.failSwaps = false
    provider().behaviour.refuseCooperation = false
  }
})

s.run()
