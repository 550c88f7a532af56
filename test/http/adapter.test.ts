// The HTTP entry as a client sees it: routes from the catalogue, both dialects, limits and refusals.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { catalogue } from '../../schema/catalogue.js'

const http = suite('HTTP adapter')
let daemon: TestDaemon

http.before(async () => {
  daemon = await startDaemon()
})
http.after(async () => {
  await daemon.stop()
})

http('GET /api/health answers OK in the payments dialect', async () => {
  const res = await daemon.request('GET', '/api/health')
  assert.is(res.status, 200)
  assert.equal(res.json, { status: 'OK' })
  assert.match(res.headers.get('content-type') ?? '', /application\/json/)
})

http('a trailing slash, a query string and dot segments reach the same route', async () => {
  for (const path of ['/api/health/', '/api/health?probe=1', '/api/x/../health']) {
    const res = await daemon.request('GET', path)
    assert.is(res.status, 200, path)
    assert.equal(res.json, { status: 'OK' })
  }
})

http('an unknown route is a JSON 404', async () => {
  const res = await daemon.request('GET', '/api/does/not/exist')
  assert.is(res.status, 404)
  assert.equal(res.json, { detail: 'Not Found' })
})

http('the removed restaurant category endpoints answer 404', async () => {
  for (const path of ['/restaurant/api/v1/categories', '/restaurant/api/v1/subcategories/abc']) {
    const res = await daemon.request('GET', path)
    assert.is(res.status, 404, path)
  }
})

http('a known path with the wrong method is a JSON 405 naming the allowed method', async () => {
  const res = await daemon.request('GET', '/api/admin/app/add')
  assert.is(res.status, 405)
  assert.is(res.headers.get('allow'), 'POST')
  assert.ok(res.json.detail)
})

http('malformed JSON is a clear error in the operation dialect', async () => {
  const pub = await daemon.request('POST', '/api/admin/app/add', {
    rawBody: '{"name": ',
    headers: { 'content-type': 'application/json', authorization: daemon.adminToken },
  })
  assert.is(pub.status, 200)
  assert.is(pub.json.status, 'ERROR')
  assert.match(pub.json.reason, /^malformed JSON body/)

  const detail = await daemon.request('PUT', '/transcription/api/v1/models/default', {
    rawBody: '{oops',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${daemon.adminToken}` },
  })
  assert.is(detail.status, 400)
  assert.match(detail.json.detail, /^malformed JSON body/)
})

http('a body over 1 MiB is refused with a clear error', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), allow_user_creation: true })
  const res = await daemon.request('POST', '/api/admin/app/add', {
    rawBody: big,
    headers: { 'content-type': 'application/json', authorization: daemon.adminToken },
  })
  assert.is(res.json.status, 'ERROR')
  assert.match(res.json.reason, /request body too large: the limit is 1048576 bytes/)
  // the daemon still answers afterwards
  assert.is((await daemon.request('GET', '/api/health')).json.status, 'OK')
})

http('validation errors name the field, behind upstream\'s "invalid request body"', async () => {
  const res = await daemon.request('POST', '/api/admin/app/add', {
    body: { name: 'shop', allow_user_creation: 'yes' },
    headers: { authorization: daemon.adminToken },
  })
  assert.is(res.json.status, 'ERROR')
  assert.match(res.json.reason, /^invalid request body: allow_user_creation: /)
})

http('auth errors come before validation errors (upstream order)', async () => {
  const res = await daemon.request('POST', '/api/admin/app/add', { body: { name: 7 } })
  assert.equal(res.json, { status: 'ERROR', reason: 'admin header not found' })
})

http('GuestWithPub operations over HTTP answer "Nostr only route"', async () => {
  for (const entry of catalogue.filter(e => e.auth === 'guestPub')) {
    const res = await daemon.request(entry.http!.method, entry.http!.path, { body: {} })
    assert.equal(res.json, { status: 'ERROR', reason: 'Nostr only route' }, entry.name)
  }
})

http('payments routes carry CORS headers and answer preflights', async () => {
  const res = await daemon.request('GET', '/api/health', { headers: { origin: 'https://wallet.example' } })
  assert.is(res.headers.get('access-control-allow-origin'), '*')
  const preflight = await fetch(daemon.url + '/api/user/invoice/new', {
    method: 'OPTIONS',
    headers: { origin: 'https://wallet.example', 'access-control-request-method': 'POST' },
  })
  assert.is(preflight.status, 204)
  assert.is(preflight.headers.get('access-control-allow-origin'), '*')
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/)
})

http('a wallet key may come as the api-key query parameter; an unknown one is "Wallet not found."', async () => {
  const res = await daemon.request('GET', '/api/v1/wallet?api-key=deadbeef')
  assert.is(res.status, 404)
  assert.equal(res.json, { detail: 'Wallet not found.' })
  const none = await daemon.request('GET', '/api/v1/wallet')
  assert.is(none.status, 401)
  assert.equal(none.json, { detail: 'No Api Key provided.' })
})

http('streams are refused over HTTP with a pointer to Nostr', async () => {
  for (const entry of catalogue.filter(e => e.stream && e.http)) {
    const res = await daemon.request(entry.http!.method, entry.http!.path, { body: {} })
    assert.is(res.json.status, 'ERROR', entry.name)
    assert.match(res.json.reason, /stream: subscribe to it over Nostr/, entry.name)
  }
})

http('every operation in the catalogue has a real handler: none answers "not implemented"', async () => {
  // The daemon refuses to start when an operation has no handler, so having started it logs them all.
  const line = daemon.logs().split('\n').find(l => l.includes('operations registered'))
  assert.ok(line, 'the daemon logs how many operations it registered')
  assert.is((JSON.parse(line!) as { operations: number }).operations, catalogue.length)
  // And through the wire: every guest operation reachable without credentials answers something else.
  for (const entry of catalogue.filter(e => e.auth === 'guest' && e.http && !e.http.path.includes(':'))) {
    const path = entry.http!.path.replace(/\{[^}]+\}/g, 'x')
    const res = await daemon.request(entry.http!.method, path, entry.http!.method === 'GET' ? {} : { body: {} })
    const reason = entry.dialect === 'pub' ? res.json?.reason : res.json?.detail
    assert.is.not(reason, `not implemented: ${entry.name}`, entry.name)
  }
})

http.run()
