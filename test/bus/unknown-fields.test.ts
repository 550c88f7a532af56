// Fields an operation does not know, over HTTP: relaypay's own operations and the extensions' refuse them naming
// the field (a misspelt budget must not leave the caller believing it is set); Lightning.Pub's operations accept
// them, as upstream does for newer clients, and log them at debug. Text holding NUL or a lone surrogate is refused by
// every operation.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'

const jwtSecret = 'unknown-fields-test-secret-0123456789ab'
const test = suite('unknown input fields')
let daemon: TestDaemon
let user: TestAppUser

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret), env: { RELAYPAY_LOG_LEVEL: 'debug' } })
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'fields-user' })
})
test.after(async () => {
  await daemon?.stop()
})

const asUser = (path: string, body: unknown) => daemon.request('POST', path, { body, headers: { authorization: `Bearer ${user.userToken}` } })

test('CreateNwcConnection refuses budget_sats, names it and the field meant, and creates nothing', async () => {
  const refused = await asUser('/api/user/nwc/create', { name: 'shop', budget_sats: 1000 })
  assert.is(refused.json.status, 'ERROR', refused.text)
  assert.is(refused.json.reason, 'invalid request body: budget_sats: unknown field; did you mean budget?')
  const list = await asUser('/api/user/nwc/list', {})
  assert.equal(list.json.connections, [])

  const nested = await asUser('/api/user/nwc/create', { name: 'shop', budget: { amount: 1000, interval: 'DAY' } })
  assert.is(nested.json.status, 'ERROR', nested.text)
  assert.match(nested.json.reason, /^invalid request body: budget\.amount_sats: .*/) // the required field is missing first
  const extra = await asUser('/api/user/nwc/create', { name: 'shop', budget: { amount_sats: 1000, interval: 'DAY', amount: 5 } })
  assert.is(extra.json.reason, 'invalid request body: budget.amount: unknown field; did you mean amount_sats?')

  const made = await asUser('/api/user/nwc/create', { name: 'shop', budget: { amount_sats: 1000, interval: 'DAY' } })
  assert.is(made.json.status, 'OK', made.text)
  assert.is(made.json.connection.budget.amount_sats, 1000)
})

test('a NUL character in any text is refused naming the field, on either store (PostgreSQL cannot hold one)', async () => {
  const named = await asUser('/api/user/nwc/create', { name: 'a\u0000b', budget: { amount_sats: 1000, interval: 'DAY' } })
  assert.is(named.json.reason, 'invalid request body: name: holds the NUL character (U+0000), which no text may hold')
  const memo = await asUser('/api/user/invoice/new', { amountSats: 10, memo: 'x\u0000' })
  assert.is(memo.json.reason, 'invalid request body: memo: holds the NUL character (U+0000), which no text may hold')
  // Nothing was made, and the same fields without it are fine.
  assert.equal((await asUser('/api/user/nwc/list', {})).json.connections.filter((c: { name: string }) => c.name.startsWith('a')), [])
  assert.is((await asUser('/api/user/invoice/new', { amountSats: 10, memo: 'x' })).json.status, 'OK')
})

test('a lone surrogate in any text is refused naming the field (SQLite read it back as another text)', async () => {
  const asApp = (path: string, body: unknown) => daemon.request('POST', path, { body, headers: { authorization: user.appToken } })
  const lone = 'invalid request body: user_identifier: holds a lone surrogate (U+D800 to U+DFFF without its pair), which is not text'
  // The fuzzer's case: GetAppUser of "\udfff" failed with an internal error once AddAppUser had stored one.
  assert.is((await asApp('/api/app/user/get', { user_identifier: '\udfff' })).json.reason, lone)
  assert.is((await asApp('/api/app/user/get', { user_identifier: 'a\ud800' })).json.reason, lone)
  const added = await asApp('/api/app/user/add', { identifier: 'x\udfff', fail_if_exists: true, balance: 0 })
  assert.is(added.json.reason, 'invalid request body: identifier: holds a lone surrogate (U+D800 to U+DFFF without its pair), which is not text')
  // A pair is a character: an identifier with an emoji is made and found again.
  const emoji = 'fields-\u{1F600}'
  assert.is((await asApp('/api/app/user/add', { identifier: emoji, fail_if_exists: true, balance: 0 })).json.status, 'OK')
  const found = await asApp('/api/app/user/get', { user_identifier: emoji })
  assert.is(found.json.status, 'OK', found.text)
  assert.is(found.json.identifier, emoji)
})

test('a Lightning.Pub operation accepts a field it does not know and logs it at debug', async () => {
  const answer = await asUser('/api/user/invoice/new', { amountSats: 10, memo: 'newer client', a_future_field: true })
  assert.is(answer.json.status, 'OK', answer.text)
  const deadline = Date.now() + 2000
  let line: Record<string, unknown> | undefined
  while (!line && Date.now() < deadline) {
    line = daemon
      .logs()
      .split('\n')
      .filter(l => l.includes('ignored input fields'))
      .map(l => JSON.parse(l))
      .find(l => (l.fields as string[]).includes('a_future_field'))
    if (!line) await new Promise(resolve => setTimeout(resolve, 25))
  }
  assert.ok(line, 'no debug line')
  assert.is(line!.level, 20)
  assert.is(line!.op, 'NewInvoice')
})

test('an extension operation (models) refuses an unknown field naming it', async () => {
  const res = await daemon.request('PUT', '/transcription/api/v1/models/default', {
    body: { model: 'base.en', modle: 'tiny' },
    headers: { authorization: `Bearer ${daemon.adminToken}` },
  })
  assert.ok(res.status === 400 || res.status === 422, `${res.status} ${res.text}`)
  assert.match(JSON.stringify(res.json.detail), /modle: unknown field; did you mean model\?/)
})

test.run()
