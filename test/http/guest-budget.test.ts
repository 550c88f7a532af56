// The per-address budget of unauthenticated routes ([http] guest_requests_per_minute, guest_burst): past the burst a
// stranger gets 429 with Retry-After at once, before its body is read; /api/health and authenticated routes are not
// counted, and other addresses are not affected (here: the same address after the refill).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import net from 'node:net'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

const test = suite('guest request budget')
let daemon: TestDaemon

test.before(async () => {
  daemon = await startDaemon({ config: '[http]\nguest_requests_per_minute = 60\nguest_burst = 5\n' })
})
test.after(async () => {
  await daemon?.stop()
})

const exchange = () => daemon.request('POST', '/api/encryption/exchange', { body: { publicKey: 'x', deviceId: 'y' } })

test('past the burst a guest route answers 429 with Retry-After; health and the operator are not counted', async () => {
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) statuses.push((await exchange()).status)
  assert.equal(statuses, [200, 200, 200, 200, 200])
  const refused = await exchange()
  assert.is(refused.status, 429)
  assert.match(refused.text, /too many requests: unauthenticated requests from this address; try again in \d+ s/)
  assert.ok(Number(refused.headers.get('retry-after')) >= 1, refused.headers.get('retry-after') ?? 'no Retry-After')
  for (let i = 0; i < 20; i++) assert.is((await daemon.request('GET', '/api/health')).status, 200)
  const admin = await daemon.request('POST', '/api/admin/app/add', { body: { name: 'budget-app', allow_user_creation: false }, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.is(admin.json.status, 'OK', admin.text)
  // 60 a minute refills one a second.
  await new Promise(resolve => setTimeout(resolve, 1100))
  assert.is((await exchange()).status, 200)
})

/**
 * Sends a keep-alive POST that declares `declared` bytes but sends only `sent` of them, and waits for the server to
 * answer and close: what it answered, and whether it closed while the rest of the body was still owed.
 */
function partialUpload(path: string, declared: number, sent: number): Promise<{ answer: string; closed: boolean }> {
  const url = new URL(daemon.url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname)
    let answer = ''
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ answer, closed: false })
    }, 3000)
    socket.on('data', chunk => (answer += chunk.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ answer, closed: true })
    })
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`)
    socket.write('x'.repeat(sent))
  })
}

test('a refused upload is not read to its end: the server answers and closes the connection', async () => {
  // The budget is spent by the test above; this address gets 429 before its body is read.
  const refused = await partialUpload('/api/encryption/exchange', 1_000_000, 1000)
  assert.match(refused.answer, /^HTTP\/1\.1 429/)
  assert.match(refused.answer, /\r\nconnection: close\r\n/i)
  assert.ok(refused.closed, 'the server waited for the rest of a body it had refused')
  // Too large for the guest body limit (answered in the Pub dialect, HTTP 200 with an ERROR body): the same.
  await new Promise(resolve => setTimeout(resolve, 1100))
  const tooLarge = await partialUpload('/api/encryption/exchange', 1_000_000, 1000)
  assert.match(tooLarge.answer, /request body too large: the limit is 65536 bytes/, tooLarge.answer)
  assert.ok(tooLarge.closed, 'the server waited for the rest of a body it had refused')
})

test.run()
