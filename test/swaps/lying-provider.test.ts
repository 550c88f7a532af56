// Providers are quoted in parallel and each answer is checked before anything is paid: a provider whose lockup
// address is not the address of the swap tree, or whose amounts break its own fees, is left out of the quotes;
// when no provider is left, the caller is told why for each.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startSwapWorld, type SwapWorld } from './swap-harness.js'

const s = suite('a provider that lies')
let world: SwapWorld

s.before(async () => {
  // providers[0] is honest, providers[1] lies about the lockup address.
  world = await startSwapWorld({ providers: [{}, { lieAboutAddress: true }], fundSats: 50_000 })
})
s.after(async () => {
  await world?.close()
})

const [honest, liar] = [() => world.providers[0]!, () => world.providers[1]!]

s('quotes come from every provider at once; the one with a wrong lockup address is left out', async () => {
  const quoted = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 10_000 })
  assert.is(quoted.status, 'OK', JSON.stringify(quoted))
  assert.is(quoted.quotes.length, 1)
  assert.is(quoted.quotes[0].service_url, honest().url)
  // Both were asked: the liar did create a swap, which nobody will pay.
  assert.ok(liar().requests.includes('POST /v2/swap/reverse'))
  const listed = await world.userCall('/api/user/swap/transaction/list')
  assert.is(listed.swaps.length, 1, 'only the sound quote is kept')

  const invoiceQuotes = await world.adminCall('/api/admin/swap/invoice/quote', { amount_sats: 10_000 })
  assert.is(invoiceQuotes.quotes.length, 1)
  assert.is(invoiceQuotes.quotes[0].service_url, honest().url)
})

s('when every provider lies, no quote is given and the reasons name the lockup address', async () => {
  honest().behaviour.lieAboutAddress = true
  try {
    const quoted = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 10_000 })
    assert.is(quoted.status, 'ERROR')
    assert.match(quoted.reason, /no swap provider gave a usable quote/)
    for (const p of world.providers) assert.match(quoted.reason, new RegExp(`${p.url}: refused: its lockup address \\w+ is not the address of the swap tree`))
    const invoice = await world.adminCall('/api/admin/swap/invoice/quote', { amount_sats: 10_000 })
    assert.match(invoice.reason, /its lockup address \w+ is not the address of the swap tree/)
  } finally {
    honest().behaviour.lieAboutAddress = false
  }
  assert.is((await world.userCall('/api/user/swap/transaction/list')).swaps.length, 1, 'nothing stored for the refused quotes')
  assert.is(world.lnd.node.payments.inFlight().length, 0, 'nothing paid')
})

s('a provider whose amounts break its own fees is refused too', async () => {
  honest().behaviour.lieAboutAmount = true
  liar().behaviour.lieAboutAddress = false
  liar().behaviour.lieAboutAmount = true
  try {
    const quoted = await world.userCall('/api/user/swap/transaction/quote', { transaction_amount_sats: 10_000 })
    assert.match(quoted.reason, /it would lock 9200 sats instead of 10200/)
    const invoice = await world.adminCall('/api/admin/swap/invoice/quote', { amount_sats: 10_000 })
    assert.match(invoice.reason, /it asks 15410 sats for a 10000-sat invoice, its fees allow 10410/)
  } finally {
    honest().behaviour.lieAboutAmount = false
    liar().behaviour.lieAboutAmount = false
  }
})

s.run()
