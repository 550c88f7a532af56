// Paydays are computed from the anchor for every period (docs/payroll.md, "Paydays"): a month-end anchor is
// clamped in short months and comes back in long ones.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { paydayOf, scheduleOf, type Frequency } from '../../../src/extensions/payroll/paydays.js'

const paydays = suite('period k pays on the anchor plus k periods, clamped to the month end')

const table: { description: string; start: string; frequency: Frequency; expected: string[] }[] = [
  {
    description: 'Jan 31 monthly in a common year: Feb 28, then back to Mar 31, Apr 30',
    start: '2025-01-31', frequency: 'monthly',
    expected: ['2025-01-31', '2025-02-28', '2025-03-31', '2025-04-30', '2025-05-31'],
  },
  {
    description: 'Jan 31 monthly in a leap year: Feb 29',
    start: '2024-01-31', frequency: 'monthly',
    expected: ['2024-01-31', '2024-02-29', '2024-03-31'],
  },
  {
    description: 'monthly across a year end',
    start: '2025-11-30', frequency: 'monthly',
    expected: ['2025-11-30', '2025-12-30', '2026-01-30', '2026-02-28', '2026-03-30'],
  },
  {
    description: 'quarterly from Nov 30: Feb 28, May 30, Aug 30',
    start: '2024-11-30', frequency: 'quarterly',
    expected: ['2024-11-30', '2025-02-28', '2025-05-30', '2025-08-30', '2025-11-30'],
  },
  {
    description: 'yearly from Feb 29: Feb 28 in common years, Feb 29 again in the next leap year',
    start: '2024-02-29', frequency: 'yearly',
    expected: ['2024-02-29', '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29'],
  },
  {
    description: 'biweekly steps 14 days across a month and a year end',
    start: '2025-12-20', frequency: 'biweekly',
    expected: ['2025-12-20', '2026-01-03', '2026-01-17', '2026-01-31', '2026-02-14'],
  },
  {
    description: 'weekly steps 7 days across the leap day',
    start: '2024-02-22', frequency: 'weekly',
    expected: ['2024-02-22', '2024-02-29', '2024-03-07'],
  },
  {
    description: 'daily across a month end',
    start: '2025-02-27', frequency: 'daily',
    expected: ['2025-02-27', '2025-02-28', '2025-03-01'],
  },
]

for (const row of table) {
  paydays(row.description, () => {
    assert.equal(
      row.expected.map((_, k) => paydayOf(row.start, row.frequency, k)),
      row.expected,
    )
  })
}

paydays('a far period is computed from the anchor, not by stepping from the previous clamped payday', () => {
  // Stepping would have stuck on the 28th after February.
  assert.is(paydayOf('2025-01-31', 'monthly', 12), '2026-01-31')
  assert.is(paydayOf('2025-01-31', 'monthly', 13), '2026-02-28')
  assert.is(paydayOf('2025-01-31', 'quarterly', 4), '2026-01-31')
  assert.is(paydayOf('2025-01-01', 'daily', 365), '2026-01-01')
})

const schedules = suite('a schedule lists the remaining paydays and ends on the last period')

schedules('from period 0: every payday, ends_on the last', () => {
  assert.equal(scheduleOf('2025-01-31', 'monthly', 0, 3), {
    paydays: [
      { period: 0, payday: '2025-01-31' },
      { period: 1, payday: '2025-02-28' },
      { period: 2, payday: '2025-03-31' },
    ],
    ends_on: '2025-03-31',
  })
})

schedules('from a later position: only the periods left, same ends_on', () => {
  assert.equal(scheduleOf('2025-01-31', 'monthly', 2, 3), { paydays: [{ period: 2, payday: '2025-03-31' }], ends_on: '2025-03-31' })
})

schedules('with every period done: no paydays and no end', () => {
  assert.equal(scheduleOf('2025-01-31', 'monthly', 3, 3), { paydays: [], ends_on: null })
})

paydays.run()
schedules.run()
