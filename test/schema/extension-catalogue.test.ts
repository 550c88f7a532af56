// The extension and model-registry catalogue against the specification itself: every route of the Endpoints tables of
// the extensions' and the model registry's parts (and the routes the payroll and model-registry decisions add), with
// the caller kind its wording implies, as extracted into the project's own fixture
// test/fixtures/spec/extension-routes.json (its "source" line says from where and when). A route dropped from the
// catalogue, a wrong method or a wrong caller kind fails here rather than in a client.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { AuthKind, Operation } from '../../schema/operation.js'
import { catalogue } from '../../schema/catalogue.js'
import { restaurantOperations } from '../../src/extensions/restaurant/contract/operations.js'
import { payrollOperations } from '../../src/extensions/payroll/contract/operations.js'
import { repoRoot } from '../support/paths.js'

interface SpecRoute {
  method: string
  path: string
  /** The caller kind the specification's wording implies. */
  auth: AuthKind
  /** Where the route was read, for failure messages. */
  source: string
}

const fixture: { source: string; routes: SpecRoute[] } = JSON.parse(
  readFileSync(path.join(repoRoot, 'test/fixtures/spec/extension-routes.json'), 'utf8'),
)

/** `{id}` and `:id` both become `{}`; the query string and a trailing slash go. */
function normalisePath(raw: string): string {
  const withoutQuery = raw.trim().split('?')[0]
  const generic = withoutQuery.replace(/\{[^}]*\}/g, '{}').replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '{}')
  return generic.length > 1 ? generic.replace(/\/+$/, '') : generic
}

/** The wallet host API and the model registry, by their sections (the wallet host's is served by two rooms). */
const walletHostOperations: readonly Operation[] = catalogue.filter(op => op.area === 'wallet-host')
const modelOperations: readonly Operation[] = catalogue.filter(op => op.area === 'models')
const extensionCatalogue: readonly Operation[] = [...restaurantOperations, ...payrollOperations, ...modelOperations]
const allOfMine: readonly Operation[] = [...walletHostOperations, ...extensionCatalogue]

/** Every spec route the catalogue lacks, or carries with another method, or with another caller kind. */
function routeProblems(spec: readonly SpecRoute[], catalogue: readonly Operation[]): string[] {
  const problems: string[] = []
  for (const route of spec) {
    const want = normalisePath(route.path)
    const samePath = catalogue.filter(op => op.http && normalisePath(op.http.path) === want)
    const match = samePath.find(op => op.http!.method === route.method)
    if (!match) {
      const others = samePath.map(op => `${op.name} uses ${op.http!.method}`).join(', ')
      problems.push(`${route.source}: ${route.method} ${route.path} ${others ? `has another method (${others})` : 'is missing'}`)
    } else if (match.auth !== route.auth && !(route.auth === 'guest' && match.auth === 'guestOrWallet')) {
      // guestOrWallet needs no credentials either; an optional key only adds a check (the quote's balance).
      problems.push(`${route.source}: ${route.method} ${route.path} (${match.name}) is '${match.auth}', spec implies '${route.auth}'`)
    }
  }
  return problems
}

const specRoutes = fixture.routes

const parsing = suite('the specification routes are all in the fixture')

parsing('every endpoint table row of the extensions and the models is there, with pairs and method lists expanded', () => {
  assert.match(fixture.source, /^Extracted on 2026-11-25 from the specification: seeds\/001_/)
  const seedRoutes = specRoutes.filter(r => r.source.startsWith('seed 001 '))
  // Part A: 9 public reads + 3 ordering + 23 owner routes (the three `POST, DELETE` rows and `GET, PUT` give two
  // each); part B: 8.
  assert.is(seedRoutes.filter(r => r.path.startsWith('/restaurant/')).length, 35)
  assert.is(seedRoutes.filter(r => r.path.startsWith('/payroll/')).length, 8)
  assert.is(specRoutes.filter(r => r.source === 'seed 002' || r.source === 'models.md').length, 5)
  assert.is(specRoutes.filter(r => r.source === 'payroll.md').length, 7)
  assert.is(specRoutes.length, 35 + 8 + 5 + 7)
  assert.ok(seedRoutes.some(r => r.method === 'DELETE' && r.path === '/restaurant/api/v1/modifier_groups/{id}'))
  assert.ok(seedRoutes.some(r => r.method === 'PUT' && r.path === '/restaurant/api/v1/settings' && r.auth === 'operator'))
  assert.ok(
    seedRoutes.some(r => r.path.startsWith('/restaurant/api/v1/restaurants/{id}/orders?') && r.auth === 'walletInvoice'),
  )
})

parsing('paths compare by shape, not by parameter names or query strings', () => {
  assert.is(normalisePath('/a/{id}/b/{new_status}?x=<1, 2>'), '/a/{}/b/{}')
  assert.is(normalisePath('/a/:id/'), '/a/{}')
})

parsing('a catalogue without a route, or with another method or caller kind, is reported', () => {
  const withoutMove = extensionCatalogue.filter(op => op.name !== 'MenuNodeMove')
  assert.ok(
    routeProblems(specRoutes, withoutMove).includes(
      'seed 001 A. Restaurant: PUT /restaurant/api/v1/menu_nodes/{id}/move is missing',
    ),
  )
  const posted = extensionCatalogue.map(op =>
    op.name === 'PayrollContractPause' ? { ...op, http: { ...op.http!, method: 'PUT' as const } } : op,
  )
  assert.match(routeProblems(specRoutes, posted).join('\n'), /pause has another method \(PayrollContractPause uses PUT\)/)
  const open = extensionCatalogue.map(op => (op.name === 'SettingsUpdate' ? { ...op, auth: 'guest' as const } : op))
  assert.match(routeProblems(specRoutes, open).join('\n'), /\(SettingsUpdate\) is 'guest', spec implies 'operator'/)
})

parsing.run()

const routes = suite('the catalogue carries every specified route with its caller kind')

routes('no seed or reference route is missing, has another method or another caller kind', () => {
  assert.equal(routeProblems(specRoutes, extensionCatalogue), [])
})

/** Routes beyond the specification, each with what it is for. */
const beyondTheSpec = [
  'GET /restaurant/r/{}', // the customer ordering page
  'POST /payroll/api/v1/scheduler/tick', // run one scheduler pass now (operators, tests)
  'POST /transcription/api/v1/recordings', // recordings: upload a clip, read its transcript
  'GET /transcription/api/v1/recordings',
  'GET /transcription/api/v1/recordings/{}',
]

routes('the catalogue has no route the specification does not name, beyond those listed above', () => {
  const specified = new Set(specRoutes.map(r => `${r.method} ${normalisePath(r.path)}`))
  const extra = extensionCatalogue
    .map(op => `${op.http!.method} ${normalisePath(op.http!.path)}`)
    .filter(route => !specified.has(route))
  assert.equal(extra.sort(), [...beyondTheSpec].sort())
})

routes('every /my/ route is walletInvoice, settings are operator, models are member', () => {
  const my = extensionCatalogue.filter(op => op.http!.path.includes('/my/'))
  assert.ok(my.length >= 3)
  for (const op of my) assert.is(op.auth, 'walletInvoice', op.name)
  const settings = extensionCatalogue.filter(op => op.http!.path.endsWith('/settings'))
  assert.is(settings.length, 2)
  for (const op of settings) assert.is(op.auth, 'operator', op.name)
  for (const op of modelOperations) assert.is(op.auth, 'member', op.name)
})

routes('exactly the public reads, ordering and the customer ordering page are guest', () => {
  const specified = specRoutes.filter(r => r.auth === 'guest').map(r => `${r.method} ${normalisePath(r.path)}`)
  assert.is(specified.length, 12)
  const guest = extensionCatalogue
    .filter(op => op.auth === 'guest' || op.auth === 'guestOrWallet')
    .map(op => `${op.http!.method} ${normalisePath(op.http!.path)}`)
  assert.equal(guest.sort(), [...specified, 'GET /restaurant/r/{}'].sort())
  const page = restaurantOperations.find(op => op.name === 'RestaurantOrderPage')!
  assert.is(page.produces, 'text/html')
})

routes('no path mentions the removed categories or subcategories', () => {
  for (const op of allOfMine) assert.not.match(op.http!.path, /categories/i, op.name)
})

routes('dialect, extension gate, statuses and content types are as the references fix them', () => {
  for (const op of allOfMine) {
    assert.is(op.dialect, 'detail', op.name)
    assert.ok(op.summary.trim().length > 0 && !op.summary.includes('\n'), `${op.name} summary`)
  }
  for (const op of restaurantOperations) assert.is(op.extension, 'restaurant', op.name)
  for (const op of payrollOperations) assert.is(op.extension, 'payroll', op.name)
  for (const op of modelOperations) assert.is(op.validationStatus, 422, op.name)
  for (const op of [...restaurantOperations, ...payrollOperations]) assert.is(op.validationStatus, undefined, op.name)
  const status = (name: string) => allOfMine.find(op => op.name === name)!.http!.status ?? 200
  assert.is(status('PayrollContractCreate'), 201)
  assert.is(status('HostCreatePayment'), 201)
  assert.is(status('PayrollContractPayNow'), 200)
  const csv = payrollOperations.filter(op => op.http!.path.endsWith('.csv'))
  assert.is(csv.length, 2)
  for (const op of csv) assert.is(op.produces, 'text/csv', op.name)
  const quote = restaurantOperations.find(op => op.name === 'OrderQuote')!
  assert.equal([quote.http!.body, quote.http!.bodyField], ['whole', 'items'])
})

routes('names and method+path pairs are unique', () => {
  const names = allOfMine.map(op => op.name)
  assert.is(new Set(names).size, names.length)
  const pairs = allOfMine.map(op => `${op.http!.method} ${normalisePath(op.http!.path)}`)
  assert.is(new Set(pairs).size, pairs.length)
})

routes.run()

const messages = suite('request messages accept and refuse what the references say')

const inputOf = (name: string) => allOfMine.find(op => op.name === name)!.input
const contract = {
  name: 'Alice',
  employee_wallet: 'wallet-employee',
  source_wallet: 'wallet-source',
  amount: '100.50',
  currency: 'EUR',
  frequency: 'monthly',
  start_date: '2024-01-31',
  total_periods: 12,
}
const tooLongExtra = { tag: 'restaurant', blob: 'x'.repeat(4096) }

// `refuses` names the field (or an element of it) the 400/422 detail must point at.
const cases: { op: string; because: string; input: unknown; refuses?: string; gives?: Record<string, unknown> }[] = [
  { op: 'PayrollContractCreate', because: 'defaults fill pricing_mode, manual_rate and backfill', input: contract,
    gives: { pricing_mode: 'payday', manual_rate: null, backfill: false, amount: '100.50' } },
  { op: 'PayrollContractCreate', because: 'an amount with 9 decimals', input: { ...contract, amount: '1.123456789' }, refuses: 'amount' },
  { op: 'PayrollContractCreate', because: 'a zero amount', input: { ...contract, amount: '0.00' }, refuses: 'amount' },
  { op: 'PayrollContractCreate', because: 'an unknown frequency', input: { ...contract, frequency: 'fortnightly' }, refuses: 'frequency' },
  { op: 'PayrollContractCreate', because: 'a day that does not exist', input: { ...contract, start_date: '2024-02-30' }, refuses: 'start_date' },
  { op: 'PayrollContractCreate', because: 'a date without padding', input: { ...contract, start_date: '2024-1-31' }, refuses: 'start_date' },
  { op: 'PayrollContractCreate', because: 'zero periods', input: { ...contract, total_periods: 0 }, refuses: 'total_periods' },
  { op: 'PayrollContractCreate', because: '10001 periods', input: { ...contract, total_periods: 10_001 }, refuses: 'total_periods' },
  { op: 'PayrollContractCreate', because: 'manual pricing without a rate', input: { ...contract, pricing_mode: 'manual' }, refuses: 'manual_rate' },
  { op: 'PayrollContractCreate', because: 'paying a wallet from itself',
    input: { ...contract, source_wallet: contract.employee_wallet }, refuses: 'source_wallet' },
  { op: 'PayrollContractCreate', because: 'a manual rate with its mode', input: { ...contract, pricing_mode: 'manual', manual_rate: '65000' },
    gives: { manual_rate: '65000' } },
  { op: 'PayrollContractUpdate', because: 'a partial update with only a name', input: { id: 'c1', name: 'Bob' }, gives: { name: 'Bob' } },
  { op: 'PayrollContractResume', because: 'resume without a body', input: { id: 'c1' }, gives: { catch_up: undefined } },
  { op: 'PayrollContractPayNow', because: 'a pay-now manual override without a rate', input: { id: 'c1', pricing_mode: 'manual' },
    refuses: 'manual_rate' },
  { op: 'OrderList', because: 'one status', input: { id: 'r1', statuses: 'paid' }, gives: { statuses: ['paid'] } },
  { op: 'OrderList', because: 'a repeated status', input: { id: 'r1', statuses: ['paid', 'accepted'] },
    gives: { statuses: ['paid', 'accepted'] } },
  { op: 'OrderList', because: 'a comma list', input: { id: 'r1', statuses: 'paid,ready' }, gives: { statuses: ['paid', 'ready'] } },
  { op: 'OrderList', because: 'an unknown status', input: { id: 'r1', statuses: 'cooking' }, refuses: 'statuses' },
  { op: 'OrderList', because: 'a limit as a query string', input: { id: 'r1', limit: '5' }, gives: { limit: 5 } },
  { op: 'OrderList', because: 'a zero limit', input: { id: 'r1', limit: '0' }, refuses: 'limit' },
  { op: 'MenuNodeDelete', because: 'cascade=true', input: { id: 'n1', cascade: 'true' }, gives: { cascade: true } },
  { op: 'MenuNodeDelete', because: 'cascade=yes', input: { id: 'n1', cascade: 'yes' }, refuses: 'cascade' },
  { op: 'MenuNodeMove', because: 'a move without new_parent_id', input: { id: 'n1' }, refuses: 'new_parent_id' },
  { op: 'MenuNodeMove', because: 'a move to the root', input: { id: 'n1', new_parent_id: null }, gives: { new_parent_id: null } },
  { op: 'OrderQuote', because: 'an empty cart', input: { items: [] }, refuses: 'items' },
  { op: 'OrderQuote', because: 'a quantity of 0', input: { items: [{ item_id: 'i1', quantity: 0 }] }, refuses: 'items.0.quantity' },
  { op: 'MenuItemCreate', because: 'a price given as a number', input: { restaurant_id: 'r1', name: 'Soup', price: 4.5 },
    gives: { price: '4.5' } },
  { op: 'MenuItemCreate', because: 'a negative price', input: { restaurant_id: 'r1', name: 'Soup', price: '-1' }, refuses: 'price' },
  { op: 'ModifierGroupCreate', because: 'max_select below min_select', input: { item_id: 'i1', name: 'Sides', min_select: 2, max_select: 1 },
    refuses: 'max_select' },
  { op: 'AvailabilityWindowCreate', because: 'an hour 24', input: { item_id: 'i1', days: ['mon'], start: '24:00', end: '02:00' },
    refuses: 'start' },
  { op: 'AvailabilityWindowCreate', because: 'no days', input: { item_id: 'i1', days: [], start: '11:00', end: '14:00' },
    refuses: 'days' },
  { op: 'RestaurantCreate', because: 'a slug with capitals and spaces', input: { name: 'Pho', slug: 'Pho Place' }, refuses: 'slug' },
  { op: 'RestaurantCreate', because: 'an unknown time zone', input: { name: 'Pho', slug: 'pho', timezone: 'Mars/Base' },
    refuses: 'timezone' },
  { op: 'ModelDefaultSet', because: 'an empty model name', input: { model: '' }, refuses: 'model' },
  { op: 'ModelDefaultSet', because: 'a 33-character model name', input: { model: 'm'.repeat(33) }, refuses: 'model' },
  { op: 'ModelDefaultSet', because: 'a 32-character model name', input: { model: 'm'.repeat(32) }, gives: { model: 'm'.repeat(32) } },
  { op: 'HostCreatePayment', because: 'a request without out', input: { amount: 10 }, refuses: 'out' },
  { op: 'HostCreatePayment', because: 'extra over 4 KiB', input: { out: false, amount: 10, extra: tooLongExtra }, refuses: 'extra' },
  { op: 'HostGetPayment', because: 'a short payment hash', input: { payment_hash: 'abc' }, refuses: 'payment_hash' },
]

for (const c of cases) {
  messages(`${c.op}: ${c.refuses ? 'refuses' : 'accepts'} ${c.because}`, () => {
    const result = inputOf(c.op).safeParse(c.input)
    if (c.refuses) {
      assert.not.ok(result.success, 'should be refused')
      const paths = result.error!.issues.map(issue => issue.path.join('.'))
      assert.ok(paths.some(p => p === c.refuses || p.startsWith(`${c.refuses}.`)), `issues at ${paths.join(', ')}`)
    } else {
      assert.ok(result.success, result.error?.message)
      for (const [key, value] of Object.entries(c.gives ?? {})) {
        assert.equal((result.data as Record<string, unknown>)[key], value, key)
      }
    }
  })
}

messages.run()
