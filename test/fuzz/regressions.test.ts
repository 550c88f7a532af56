// The holes the fuzz campaigns found, one case each, so they stay fixed even when a campaign's seed no longer hits
// them.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import http from 'node:http'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { unexpectedInLog } from '../support/fuzz/answer-oracle.js'

const holes = suite('holes the fuzzer found')
const jwtSecret = 'fuzz-regressions-jwt-secret-0123456789abcdef'
let daemon: TestDaemon

holes.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret), env: { RELAYPAY_LOG_LEVEL: 'warn' } })
})
holes.after(async () => {
  await daemon.stop()
})

/** A raw request (fetch would refuse some of these URLs before sending them). */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(daemon.url)
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, res => {
      let text = ''
      res.on('data', chunk => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), text }))
    })
    req.on('error', reject)
    req.end()
  })
}

holes('a path parameter that is not valid percent-encoding matches no route, not an internal error', async () => {
  for (const path of ['/.well-known/lnurlp/%E0%A4%A', '/.well-known/lnurlp/%ZZ', '/restaurant/api/v1/restaurants/%ED%A0%80']) {
    const res = await send('GET', path)
    // The restaurant path still matches PUT and DELETE routes by shape, so it may say Method Not Allowed.
    assert.ok([404, 405].includes(res.status), `${path}: ${res.status} ${res.text}`)
    assert.equal(JSON.parse(res.text), { detail: res.status === 404 ? 'Not Found' : 'Method Not Allowed' })
  }
  assert.equal(unexpectedInLog(daemon.logs()), [])
})

holes('a URL or headers past the parser limit get a JSON 431', async () => {
  for (const [path, headers] of [['/api/health?x=' + 'a'.repeat(20_000), {}], ['/api/health', { 'x-big': 'a'.repeat(20_000) }]] as const) {
    const res = await send('GET', path, headers)
    assert.is(res.status, 431)
    assert.match(res.type, /^application\/json/)
    assert.equal(JSON.parse(res.text), { detail: 'Request Header Fields Too Large' })
  }
})

holes('an input nested 100,000 deep is refused by validation, not a stack overflow (HostCreatePayment extra)', async () => {
  const user = await createAppWithUser(daemon, { jwtSecret })
  const keys = await daemon.request('POST', '/api/user/wallet/keys', { headers: { authorization: `Bearer ${user.userToken}` } })
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const res = await daemon.request('POST', '/api/v1/payments', {
    rawBody: `{"out":false,"amount":1,"memo":"x","extra":{"a":${deep}}}`,
    headers: { 'content-type': 'application/json', 'x-api-key': keys.json.admin_key },
  })
  assert.is(res.status, 400, res.text)
  assert.equal(res.json, { detail: 'body: nested deeper than 32 levels' })
  const pub = await daemon.request('POST', '/api/user/invoice/new', {
    rawBody: `{"amountSats":1,"memo":${deep}}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.userToken}` },
  })
  assert.equal(pub.json, { status: 'ERROR', reason: 'invalid request body: body: nested deeper than 32 levels' })
  assert.equal(unexpectedInLog(daemon.logs()), [])
})

holes.run()
