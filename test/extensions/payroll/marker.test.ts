// The memo and marker each period's invoice carries (docs/payroll.md, "Paying a period", step 5). The HTTP test in
// payments.test.ts reads them back from the host's payment details; this one pins the shapes.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { extraOf, memoOf, payrollRef } from '../../../src/extensions/payroll/payment-marker.js'

const period = { contractId: 'c1', contractName: 'Alice salary', period: 4, payday: '2025-05-31', amount: '1500.50', currency: 'EUR' }
const price = { amountMsat: 2_500_833_194, rate: '60000.12', rateSource: 'kraken' as const, fiatRate: '1666.66333334', btcRate: '60000.12' }

const marker = suite('the memo names the payday and the rate; the marker names contract, period and the fiat terms')

marker('a fiat period: `<name> - <payday> . <amount> <currency> @ <rate> <currency>/BTC`', () => {
  assert.is(memoOf(period, price), 'Alice salary - 2025-05-31 . 1500.50 EUR @ 60000.12 EUR/BTC')
})

marker('a sat period has no rate to name', () => {
  const sat = { ...period, amount: '21000', currency: 'sat' }
  assert.is(memoOf(sat, { ...price, rate: null, rateSource: null, fiatRate: '1', btcRate: '100000000' }), 'Alice salary - 2025-05-31 . 21000 sat')
})

marker('extra carries exactly the marker keys', () => {
  assert.equal(extraOf(period, price), {
    tag: 'payroll',
    contract_id: 'c1',
    period: 4,
    payday: '2025-05-31',
    fiat_currency: 'EUR',
    fiat_amount: '1500.50',
    fiat_rate: '1666.66333334',
    btc_rate: '60000.12',
  })
})

marker("a paid invoice is payroll's only when its extra says so", () => {
  assert.equal(payrollRef(extraOf(period, price)), { contractId: 'c1', period: 4 })
  assert.is(payrollRef({ tag: 'restaurant', order_id: 'o1' }), undefined)
  assert.is(payrollRef({ tag: 'payroll', contract_id: 'c1', period: '4' }), undefined)
})

marker.run()
