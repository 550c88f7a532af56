// Fiat ↔ msat arithmetic is exact (docs/payroll.md, "Paying a period", step 2; a restaurant's fiat prices too): no
// float ever decides how many msat an employee or a restaurant receives.
import fc from 'fast-check'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { fiatToMsat, fiatToSats, normalizeDecimal, satsPerUnit } from '../../src/rates/index.js'
import { parseJsonKeepingNumbers } from '../../src/rates/json-numbers.js'

const toMsat = suite('fiat amounts become msat with the rounding asked for, exactly')
for (const c of [
  { because: '12.50 EUR at 60000.12 EUR/BTC', amount: '12.50', rate: '60000.12', halfUp: 20833292, ceil: 20833292 },
  { because: 'a third of a msat and more is rounded down half-up, up by ceil', amount: '0.1', rate: '3', halfUp: 3333333333, ceil: 3333333334 },
  { because: 'an exact division needs no rounding', amount: '6', rate: '60000', halfUp: 10000000, ceil: 10000000 },
  { because: 'exactly half a msat rounds up', amount: '0.5', rate: '100000000000', halfUp: 1, ceil: 1 },
  { because: 'two and a half msat rounds to 3, not to the even 2', amount: '2.5', rate: '100000000000', halfUp: 3, ceil: 3 },
  { because: 'just under half a msat rounds down, ceil still charges it', amount: '0.4999999', rate: '100000000000', halfUp: 0, ceil: 1 },
  { because: 'a fraction of a msat is nothing half-up, one msat by ceil', amount: '1.5', rate: '1000000000000', halfUp: 0, ceil: 1 },
  { because: 'zero is zero', amount: '0', rate: '60000', halfUp: 0, ceil: 0 },
  { because: 'trailing zeros change nothing', amount: '0.10', rate: '3.000', halfUp: 3333333333, ceil: 3333333334 },
  { because: '0.07 at 1 is 7e9 msat, where a float ceil says 7000000001', amount: '0.07', rate: '1', halfUp: 7000000000, ceil: 7000000000 },
  { because: '19.99 at 1, where floats land below 1999e9', amount: '19.99', rate: '1', halfUp: 1999000000000, ceil: 1999000000000 },
  { because: 'exponent forms from providers are read exactly', amount: '1e1', rate: '6e4', halfUp: 16666667, ceil: 16666667 },
]) {
  toMsat(c.because, () => {
    assert.is(fiatToMsat(c.amount, c.rate, 'half_up'), c.halfUp)
    assert.is(fiatToMsat(c.amount, c.rate, 'ceil'), c.ceil)
  })
}

toMsat('refuses a negative amount, a rate that is not positive, and msat beyond a safe integer', () => {
  assert.throws(() => fiatToMsat('-1', '60000', 'half_up'), /must not be negative/)
  assert.throws(() => fiatToMsat('1', '0', 'half_up'), /must be positive/)
  assert.throws(() => fiatToMsat('1', '-60000', 'ceil'), /must be positive/)
  assert.throws(() => fiatToMsat('90071992547.40992', '1', 'half_up'), /too large/)
  assert.throws(() => fiatToMsat('1,000', '60000', 'half_up'), /not a decimal/)
})

toMsat('half-up is never more than half a msat from the exact value, and ceil never short of it', () => {
  const decimalText = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 8 }))
    .map(([units, scale]) => ({ units, scale, text: textOf(units, scale) }))
  fc.assert(
    fc.property(decimalText, decimalText, (amount, rate) => {
      // exact value = amount.units × 10^(11 + rate.scale) / (rate.units × 10^amount.scale) = n / d
      const n = amount.units * 10n ** BigInt(11 + rate.scale)
      const d = rate.units * 10n ** BigInt(amount.scale)
      if (n / d > BigInt(Number.MAX_SAFE_INTEGER)) return
      const half = BigInt(fiatToMsat(amount.text, rate.text, 'half_up'))
      const up = BigInt(fiatToMsat(amount.text, rate.text, 'ceil'))
      assert.ok(2n * (half * d - n) <= d && 2n * (n - half * d) < d, 'half_up within half a msat')
      assert.ok(up * d >= n && (up - 1n) * d < n, 'ceil is the smallest msat not below the value')
    }),
  )
})

toMsat("whole sats by ceil equal msat by ceil rounded up to sats (restaurant's rule)", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 7n }), fc.bigInt({ min: 10n ** 6n, max: 10n ** 12n }), (a, r) => {
      const amount = textOf(a, 2)
      const rate = textOf(r, 3)
      assert.is(fiatToSats(amount, rate, 'ceil'), Math.ceil(fiatToMsat(amount, rate, 'ceil') / 1000))
    }),
  )
})
toMsat.run()

const sats = suite('whole sats and sats per unit')
for (const c of [
  { amount: '12.50', rate: '60000.12', rounding: 'ceil' as const, sats: 20834 },
  { amount: '12.50', rate: '60000.12', rounding: 'half_up' as const, sats: 20833 },
  { amount: '6', rate: '60000', rounding: 'ceil' as const, sats: 10000 },
  { amount: '0.01', rate: '98765432.10', rounding: 'ceil' as const, sats: 1 },
  { amount: '0.01', rate: '98765432.10', rounding: 'half_up' as const, sats: 0 },
]) {
  sats(`${c.amount} at ${c.rate} is ${c.sats} sat by ${c.rounding}`, () => {
    assert.is(fiatToSats(c.amount, c.rate, c.rounding), c.sats)
  })
}
for (const c of [
  { rate: '60000.12', decimals: undefined, perUnit: '1666.66333334' },
  { rate: '60000', decimals: undefined, perUnit: '1666.66666667' },
  { rate: '50000', decimals: undefined, perUnit: '2000' },
  { rate: '98767716.1115', decimals: undefined, perUnit: '1.01247659' },
  { rate: '60000.12', decimals: 2, perUnit: '1666.66' },
]) {
  sats(`${c.rate} per BTC is ${c.perUnit} sat per unit`, () => {
    assert.is(satsPerUnit(c.rate, c.decimals), c.perUnit)
  })
}
sats.run()

const text = suite('provider numbers keep every digit they were sent with')
for (const [given, canonical] of [
  ['60000.10000', '60000.1'],
  ['0.0', '0'],
  ['-0.50', '-0.5'],
  ['007', '7'],
  ['1e3', '1000'],
  ['1.5e-3', '0.0015'],
  ['90001274.158333074', '90001274.158333074'],
]) {
  text(`${given} reads as ${canonical}`, () => assert.is(normalizeDecimal(given), canonical))
}
for (const bad of ['', 'abc', '1,000', 'NaN', '1.', '.5', '1e999']) {
  text(`${JSON.stringify(bad)} is refused`, () => assert.throws(() => normalizeDecimal(bad)))
}
text('JSON numbers arrive as their literal text, with strings and escapes left alone', () => {
  const parsed = parseJsonKeepingNumbers(
    '{"usd": 93429.58478384925, "ngn":90001274.158333074, "note":"say \\"12.5\\" 7", "list":[1,-2.5e3,true,null]}',
  )
  assert.equal(parsed, {
    usd: '93429.58478384925',
    ngn: '90001274.158333074',
    note: 'say "12.5" 7',
    list: ['1', '-2.5e3', true, null],
  })
})
text.run()

function textOf(units: bigint, scale: number): string {
  const digits = units.toString().padStart(scale + 1, '0')
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
}
