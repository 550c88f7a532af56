// Opening hours: whether an item can be ordered now, and, when it cannot, from when it can (in the restaurant's
// timezone), as the customer's page says it.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { availableAt, nextOpening } from '../../../src/extensions/restaurant/availability.js'
import { renderOrderPage, type PageItem } from '../../../src/extensions/restaurant/order-page-html.js'

const test = suite('opening hours')
// Wednesday 2026-01-07, 09:30 in Berlin (08:30 UTC).
const wednesday0930 = Date.UTC(2026, 0, 7, 8, 30)
const berlin = 'Europe/Berlin'

test('closed before today\'s window: open from its start, today', () => {
  const windows = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '11:00', end: '22:00' }]
  assert.not.ok(availableAt(windows, wednesday0930, berlin))
  assert.equal(nextOpening(windows, wednesday0930, berlin), { weekday: 'wed', start: '11:00', today: true })
})

test("after today's window: the next listed day; the earliest of several windows", () => {
  const late = Date.UTC(2026, 0, 7, 22, 0) // 23:00 Wednesday in Berlin
  const windows = [
    { days: ['fri'], start: '08:00', end: '10:00' },
    { days: ['wed', 'thu'], start: '11:00', end: '22:00' },
  ]
  assert.not.ok(availableAt(windows, late, berlin))
  assert.equal(nextOpening(windows, late, berlin), { weekday: 'thu', start: '11:00', today: false })
})

test('a window only on the current weekday, already over: the same day next week', () => {
  const windows = [{ days: ['wed'], start: '07:00', end: '09:00' }]
  assert.equal(nextOpening(windows, wednesday0930, berlin), { weekday: 'wed', start: '07:00', today: false })
})

test('no window: always available, no opening to name', () => {
  assert.ok(availableAt([], wednesday0930, berlin))
  assert.is(nextOpening([], wednesday0930, berlin), undefined)
})

test("the customer's page says from when an item outside its hours can be ordered", () => {
  const item = (id: string, windows: PageItem['availability_windows']): PageItem => ({
    id, node_id: null, name: id, description: '', price: '100', image: null, sold_out: false, modifier_groups: [], availability_windows: windows,
  })
  const page = renderOrderPage({
    restaurant: { id: 'r', name: 'Cafe', slug: 'cafe', description: '', currency: 'sat', timezone: berlin, image: null, active: true },
    tree: [],
    items: [
      item('lunch', [{ days: ['wed'], start: '11:00', end: '14:00' }]),
      item('brunch', [{ days: ['sat', 'sun'], start: '10:00', end: '13:00' }]),
      item('coffee', []),
    ],
    now: wednesday0930,
    apiBase: '/restaurant/api/v1',
  })
  const end = (name: string) => new RegExp(`>${name}</strong>(?:(?!</strong>)[\\s\\S])*?(<button[^>]*data-add|<span class="unavailable">[^<]*)`).exec(page)?.[1]
  assert.is(end('lunch'), '<span class="unavailable">Not available now · from 11:00')
  assert.is(end('brunch'), '<span class="unavailable">Not available now · from Sat 10:00')
  assert.is(end('coffee'), '<button type="button" class="add" data-add')
})

test.run()
