// Transaction swaps (Lightning → on-chain) against a fake Boltz that checks every signature it gets: a user's
// full swap through PayAddress, the operator's through PayAdminTransactionSwap, and refusals (a lying provider).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { hexToBytes } from '@noble/hashes/utils.js'
import { Address, OutScript, Transaction } from '@scure/btc-signer'
import { startSwapWorld, outsideAddress, until, type SwapWorld } from './swap-harness.js'
import { assertAuditClean } from '../support/money.js'

const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
const s = suite('transaction swaps')
let world: SwapWorld

s.before(async () => {
  world = await startSwapWorld()
})
s.after(async () => {
  await world?.close()
})

/** The output of a broadcast transaction that pays `address`, in sats. */
function paidTo(hex: string, address: string): number {
  const tx = Transaction.fromRaw(hexToBytes(hex), { allowUnknownOutputs: true })
  const script = OutScript.encode(Address(regtest).decode(address))
  for (let i = 0; i < tx.outputsLength; i++) {
    const out = tx.getOutput(i)
    if (out.script && Buffer.from(out.script).equals(Buffer.from(script))) return Number(out.amount)
  }
  return 0
}

s('a user pays an outside address: quote, hold invoice paid with the service fee, cooperative claim', async () => {
  const before = await world.balance()
  const quoted = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 20_000 })
  assert.is(quoted.status, 'OK', JSON.stringify(quoted))
  assert.is(quoted.quotes.length, 1)
  const quote = quoted.quotes[0]
  // Provider fees: 0.5 % + 300 lockup + 200 claim. It locks 20 200 (our claim fee included) for a 20 601-sat invoice.
  assert.equal(
    { ...quote, swap_operation_id: 'x', expires_at_block_height: 0 },
    {
      swap_operation_id: 'x',
      invoice_amount_sats: 20_601,
      transaction_amount_sats: 20_000,
      swap_fee_sats: 101,
      chain_fee_sats: 500,
      service_fee_sats: 124, // max(ceil(20 601 × 60 / 10 000), 10)
      service_url: world.providers[0]!.url,
      expires_at_block_height: 0,
      paid_at_unix: 0,
      completed_at_unix: 0,
    },
  )
  assert.ok(quote.expires_at_block_height > 800)

  const address = outsideAddress()
  const paid = await world.userCall('/api/user/chain/pay', {
    address,
    amountSats: 20_000,
    satsPerVByte: 0,
    swap_operation_id: quote.swap_operation_id,
  })
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  assert.is(paid.service_fee, 124)
  assert.is(paid.network_fee, 601, 'chain fee + swap fee')
  assert.match(paid.operation_id, /^OUTGOING_INVOICE-\d+$/)

  // The provider accepted the claim only after checking its aggregated signature over the right sighash.
  const provider = world.providers[0]!
  const claim = provider.broadcasts.find(b => b.txid === paid.txId)
  assert.ok(claim, 'the claim went to the provider')
  assert.is(claim!.path, 'key', 'cooperative MuSig2 key-path claim')
  assert.is(paidTo(claim!.hex, address), 20_000, 'the address receives exactly the quoted amount')
  assert.is(provider.refusedBroadcasts.length, 0)

  await until(async () => (await world.balance()) === before - 20_601 - 124, 'the hold invoice payment to settle')
  const listed = await world.userCall('/api/user/swap/transaction/list')
  const swap = listed.swaps.find((x: any) => x.quote.swap_operation_id === quote.swap_operation_id)
  assert.is(swap.tx_id, paid.txId)
  assert.is(swap.address_paid, address)
  assert.ok(swap.quote.completed_at_unix > 0)
  assert.is(swap.operation_payment.operationId, paid.operation_id)
  await until(async () => (await world.userCall('/api/user/swap/transaction/list')).swaps[0].operation_payment.paidAtUnix > 0, 'payment settled')
  await assertAuditClean(world.daemon.dataDir)
})

s('a quote is paid once: a second PayAddress with it is refused', async () => {
  const listed = await world.userCall('/api/user/swap/transaction/list')
  const used = listed.swaps[0].quote
  const again = await world.userCall('/api/user/chain/pay', {
    address: outsideAddress(),
    amountSats: used.transaction_amount_sats,
    satsPerVByte: 0,
    swap_operation_id: used.swap_operation_id,
  })
  assert.is(again.status, 'ERROR')
  assert.match(again.reason, /already claimed/)
})

s('four PayAddress calls with one quote at once: one is paid, the balance pays the invoice once', async () => {
  const before = await world.balance()
  const quoted = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 10_000 })
  assert.is(quoted.status, 'OK', JSON.stringify(quoted))
  const quote = quoted.quotes[0]
  const address = outsideAddress()
  const pay = () =>
    world.userCall('/api/user/chain/pay', { address, amountSats: 10_000, satsPerVByte: 0, swap_operation_id: quote.swap_operation_id })
  const answers = await Promise.all([pay(), pay(), pay(), pay()])
  assert.is(answers.filter(a => a.status === 'OK').length, 1, JSON.stringify(answers))
  for (const answer of answers.filter(a => a.status !== 'OK')) assert.match(answer.reason, /already/)
  const cost = quote.invoice_amount_sats + quote.service_fee_sats
  await until(async () => (await world.balance()) === before - cost, 'the one payment to settle')
  assert.is(await world.balance(), before - cost)
})

s('PayAddress must send the quoted amount to a valid address', async () => {
  const { quotes } = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 5_000 })
  const id = quotes[0].swap_operation_id
  const wrongAmount = await world.userCall('/api/user/chain/pay', { address: outsideAddress(), amountSats: 4_000, satsPerVByte: 0, swap_operation_id: id })
  assert.match(wrongAmount.reason, /quoted transaction_amount_sats \(5000\)/)
  const wrongNet = await world.userCall('/api/user/chain/pay', {
    address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    amountSats: 5_000,
    satsPerVByte: 0,
    swap_operation_id: id,
  })
  assert.match(wrongNet.reason, /invalid address/)
})

s('a payment refused for want of balance leaves the quote payable', async () => {
  const balance = await world.balance()
  const { quotes } = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: balance })
  const id = quotes[0].swap_operation_id
  const refused = await world.userCall('/api/user/chain/pay', { address: outsideAddress(), amountSats: balance, satsPerVByte: 0, swap_operation_id: id })
  assert.is(refused.status, 'ERROR')
  assert.match(refused.reason, /balance/i)
  const swap = (await world.userCall('/api/user/swap/transaction/list')).swaps.find((x: any) => x.quote.swap_operation_id === id)
  assert.is(swap.quote.paid_at_unix, 0, 'back to quoted')
  assert.not.ok(swap.failure_reason)
  assert.not.ok(swap.address_paid)
  assert.is(await world.balance(), balance)
})

s('the operator sends from the node: PayAdminTransactionSwap claims to the address, no wallet moves', async () => {
  const before = await world.balance()
  const quoted = await world.adminCall('/api/admin/swap/transaction/quote', { transaction_amount_sats: 30_000 })
  assert.is(quoted.status, 'OK', JSON.stringify(quoted))
  const quote = quoted.quotes[0]
  assert.is(quote.service_fee_sats, 0, 'the node pays no service fee to itself')
  const address = outsideAddress()
  const paid = await world.adminCall('/api/admin/swap/transaction/pay', { address, swap_operation_id: quote.swap_operation_id })
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  assert.is(paid.network_fee, quote.chain_fee_sats + quote.swap_fee_sats)
  const claim = world.providers[0]!.broadcasts.find(b => b.txid === paid.tx_id)
  assert.is(claim?.path, 'key')
  assert.is(paidTo(claim!.hex, address), 30_000)
  const hash = [...world.providers[0]!.swaps.values()].find(x => x.kind === 'reverse' && x.invoice && x.onchainAmount === 30_200)!
  await until(() => world.lnd.node.payments.get(Buffer.from(hash.preimageHash).toString('hex'))?.status === 'SUCCEEDED', 'the node payment to settle')
  const admins = await world.adminCall('/api/admin/swap/transaction/list')
  assert.is(admins.swaps.length, 1)
  assert.is(admins.swaps[0].tx_id, paid.tx_id)
  const users = await world.userCall('/api/user/swap/transaction/list')
  assert.not.ok(users.swaps.some((x: any) => x.quote.swap_operation_id === quote.swap_operation_id), 'the user does not see it')
  assert.is(await world.balance(), before)
  await assertAuditClean(world.daemon.dataDir)
})

s('a provider whose broadcast endpoint fails (HTTP 500): the claim goes out through our node', async () => {
  const provider = world.providers[0]!
  for (const refuseCooperation of [false, true]) {
    const amount = refuseCooperation ? 9_000 : 8_000
    const { quotes } = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: amount })
    const address = outsideAddress()
    provider.behaviour.failBroadcasts = true
    provider.behaviour.refuseCooperation = refuseCooperation
    let paid
    try {
      paid = await world.userCall('/api/user/chain/pay', { address, amountSats: amount, satsPerVByte: 0, swap_operation_id: quotes[0].swap_operation_id })
    } finally {
      provider.behaviour.failBroadcasts = false
      provider.behaviour.refuseCooperation = false
    }
    assert.is(paid.status, 'OK', JSON.stringify(paid))
    assert.not.ok(provider.broadcasts.some(b => b.txid === paid.txId), 'the provider did not take it')
    const onChain = world.lnd.node.chain.txs.get(paid.txId)
    assert.ok(onChain, 'our node published the claim')
    assert.is(paidTo(onChain!.hex, address), amount)
    // Cooperative: the provider had the preimage from the signing round; script path: it reads it from the chain.
    const swap = [...provider.swaps.values()].find(x => x.kind === 'reverse' && x.onchainAmount === amount + 200)!
    await until(() => world.lnd.node.payments.get(Buffer.from(swap.preimageHash).toString('hex'))?.status === 'SUCCEEDED', 'the hold invoice to settle')
  }
  await assertAuditClean(world.daemon.dataDir)
})

s('a swap the provider fails before locking: the payment fails and the user gets everything back', async () => {
  const provider = world.providers[0]!
  const before = await world.balance()
  const { quotes } = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 7_000 })
  provider.behaviour.failSwaps = true
  try {
    const paid = await world.userCall('/api/user/chain/pay', {
      address: outsideAddress(),
      amountSats: 7_000,
      satsPerVByte: 0,
      swap_operation_id: quotes[0].swap_operation_id,
    })
    assert.is(paid.status, 'ERROR')
  } finally {
    provider.behaviour.failSwaps = false
  }
  await until(async () => (await world.balance()) === before, 'the refund of the failed payment')
  const listed = await world.userCall('/api/user/swap/transaction/list')
  const swap = listed.swaps.find((x: any) => x.quote.swap_operation_id === quotes[0].swap_operation_id)
  assert.ok(swap.failure_reason, 'the failure is recorded')
  assert.not.ok(swap.tx_id)
  await assertAuditClean(world.daemon.dataDir)
})

s.run()
