// The access log, seen as an operator sees it: one JSON line per HTTP and per Nostr request naming the operation,
// the caller kind, the outcome, the status, the duration and the request id — and nothing a caller sent.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import fs from 'node:fs'
import path from 'node:path'
import { appProfile, PubClient } from '../support/pub-client.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { createAppWithUser, jwtSecretConfig } from '../support/accounts.js'

const jwtSecret = 'access-log-test-secret-0123456789abcdef'
const test = suite('access log')
let daemon: TestDaemon

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
})
test.after(async () => {
  await daemon?.stop()
})

/** The access lines logged so far, parsed. */
function accessLines(d: TestDaemon = daemon): Record<string, unknown>[] {
  return d
    .logs()
    .split('\n')
    .filter(line => line.includes('"room":"access"'))
    .map(line => JSON.parse(line))
}

/** Waits for the access line of `requestId` (the line is written when the answer is, maybe just after the client read it). */
async function lineFor(requestId: string, d: TestDaemon = daemon): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const line = accessLines(d).find(l => l.requestId === requestId)
    if (line) return line
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  throw new Error(`no access line for ${requestId}:\n${d.logs()}`)
}

test('an HTTP call gets a request id in X-Request-Id and one access line with its fields, and no credential', async () => {
  const res = await daemon.request('GET', '/api/admin/channels', { headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.is(res.json.status, 'OK', res.text)
  const requestId = res.headers.get('x-request-id')
  assert.ok(requestId && requestId.length >= 16, `generated request id: ${requestId}`)
  const line = await lineFor(requestId!)
  assert.is(line.transport, 'http')
  assert.is(line.operation, 'ListChannels')
  assert.is(line.caller, 'admin')
  assert.is(line.status, res.status)
  assert.is(line.outcome, 'ok')
  assert.type(line.durationMs, 'number')
  assert.is(line.msg, 'request')
  // Nothing else rides in the line: the fields above and pino's own.
  assert.equal(Object.keys(line).sort(), ['caller', 'durationMs', 'level', 'msg', 'operation', 'outcome', 'pid', 'requestId', 'room', 'status', 'time', 'transport'].sort())
  assert.not.ok(JSON.stringify(accessLines()).includes(daemon.adminToken))
})

test("a caller's own X-Request-Id is kept (cut to 64 characters); a failed call logs its error code and status", async () => {
  // The Lightning.Pub dialect answers its errors with 200 and status ERROR: the line keeps the HTTP status as sent.
  const res = await daemon.request('POST', '/api/admin/node/getinfo', { body: {}, headers: { authorization: 'Bearer not-a-token-at-all', 'x-request-id': 'trace-42' } })
  assert.is(res.json.status, 'ERROR')
  assert.is(res.headers.get('x-request-id'), 'trace-42')
  const line = await lineFor('trace-42')
  assert.is(line.caller, 'none')
  assert.is(line.outcome, 'unauthenticated')
  assert.is(line.status, res.status)

  const long = 'x'.repeat(200)
  const cut = await daemon.request('GET', '/api/health', { headers: { 'x-request-id': long } })
  assert.is(cut.headers.get('x-request-id'), 'x'.repeat(64))
  assert.is((await lineFor('x'.repeat(64))).operation, 'Health')
})

test('a path no operation serves gets a line too, with no operation', async () => {
  const res = await daemon.request('GET', '/no/such/path', { headers: { 'x-request-id': 'lost-1' } })
  assert.is(res.status, 404)
  const line = await lineFor('lost-1')
  assert.is(line.operation, null)
  assert.is(line.status, 404)
  assert.is(line.outcome, 'http_404')
})

test('a Nostr request gets a line with transport nostr, its caller kind and ok or error', async () => {
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays, appPubkey: pubkey })
  try {
    const reply = await client.call('GetUserInfo', {}, { requestId: 'nostr-req-1' })
    assert.is(reply.status, 'OK')
    const line = await lineFor('nostr-req-1')
    assert.is(line.transport, 'nostr')
    assert.is(line.operation, 'GetUserInfo')
    assert.is(line.caller, 'user')
    assert.is(line.status, 'ok')
    assert.is(line.outcome, 'ok')
  } finally {
    client.close()
  }
})

test('a Nostr request refused before the dispatcher (an unknown rpcName) still gets its line', async () => {
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays, appPubkey: pubkey })
  try {
    const reply = await client.call('DropTables', {}, { requestId: 'nostr-unknown-1' })
    assert.is(reply.status, 'ERROR')
    const line = await lineFor('nostr-unknown-1')
    assert.equal([line.transport, line.operation, line.caller, line.outcome, line.status], ['nostr', null, 'none', 'not_found', 'error'])
  } finally {
    client.close()
  }
})

test('an NWC request gets a line with transport nwc, its method and outcome, named by its event id', async () => {
  const user = await createAppWithUser(daemon, { jwtSecret, identifier: 'nwc-access' })
  const created = await daemon.request('POST', '/api/user/nwc/create', { body: { name: 'access' }, headers: { authorization: `Bearer ${user.userToken}` } })
  assert.is(created.json.status, 'OK', created.text)
  const relay = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
  const client = await NwcTestClient.connect(created.json.connection_uri, relay)
  try {
    const request = client.buildRequest('get_balance', {})
    const response = await client.send(request)
    assert.is(response.error, null)
    const line = await lineFor(request.id)
    assert.equal(
      { transport: line.transport, operation: line.operation, caller: line.caller, outcome: line.outcome, status: line.status },
      { transport: 'nwc', operation: 'get_balance', caller: 'nwc', outcome: 'ok', status: 'ok' },
    )
    const refused = client.buildRequest('no_such_method', {})
    const answer = await client.send(refused)
    assert.ok(answer.error)
    const failed = await lineFor(refused.id)
    assert.is(failed.status, 'error')
    assert.is(failed.outcome, answer.error!.code)
  } finally {
    client.close()
  }
})

test('[log] access = false turns the lines off', async () => {
  const quiet = await startDaemon({ config: '[log]\naccess = false\n' })
  try {
    const res = await quiet.request('GET', '/api/health')
    assert.is(res.status, 200)
    assert.ok(res.headers.get('x-request-id'))
    await new Promise(resolve => setTimeout(resolve, 100))
    assert.equal(accessLines(quiet), [])
  } finally {
    await quiet.stop()
  }
})

test.run()
