// The HTTP API as an OpenAPI 3.1 document: served without credentials at GET /api/openapi.json by a running daemon,
// printed the same by `relaypay docs --openapi`, valid by the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator,
// which checks against the specification's own JSON Schemas), and complete: every catalogue operation that has an
// HTTP route is there once, at its method and path, with its parameters, body, answers and who may call it.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { Validator } from '@seriousme/openapi-schema-validator'
import { catalogue } from '../../schema/catalogue.js'
import { cliPath, relaypayArgs, startDaemon, type TestDaemon } from '../support/daemon.js'
import { repoRoot } from '../support/paths.js'

const test = suite('OpenAPI document')
let daemon: TestDaemon
let served: any

test.before(async () => {
  daemon = await startDaemon()
  const answer = await daemon.request('GET', '/api/openapi.json')
  assert.is(answer.status, 200, answer.text)
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/)
  served = answer.json
})
test.after(async () => {
  await daemon?.stop()
})

test('valid OpenAPI 3.1, naming this version', async () => {
  const validator = new Validator()
  const result = await validator.validate(served)
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 4000))
  assert.is(validator.version, '3.1')
  const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
  assert.is(served.info.version, version)
})

test('`relaypay docs --openapi` prints the document the daemon serves', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, relaypayArgs(cliPath, ['docs', '--openapi']), { maxBuffer: 64 * 1024 * 1024 })
  assert.equal(JSON.parse(stdout), served)
})

test('every operation with an HTTP route is there once, at its method and path', () => {
  const nostrOnly = new Set(['guestPub', 'nwcConnection', 'clinkRequester'])
  const routed = catalogue.filter(entry => 'http' in entry && entry.http && !nostrOnly.has(entry.auth))
  const documented = Object.entries(served.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ route, method, name: op.operationId })),
  )
  assert.is(documented.length, routed.length)
  for (const entry of routed) {
    const http = (entry as { http: { method: string; path: string } }).http
    const route = http.path.replace(/:([A-Za-z_]\w*)/g, '{$1}')
    const found = documented.filter(d => d.name === entry.name)
    assert.equal(found, [{ route, method: http.method.toLowerCase(), name: entry.name }], entry.name)
  }
})

test("an operation's parameters, body, answers and callers", () => {
  const pay = served.paths['/api/user/invoice/pay'].post
  assert.equal(pay.security, [{ bearer: [] }])
  const payBody = pay.requestBody.content['application/json'].schema
  assert.equal(payBody.required, ['invoice', 'amount'])
  assert.is(payBody.properties.invoice.type, 'string')
  // Lightning.Pub's envelope: 200 either way, with `status`.
  const [ok, refused] = pay.responses['200'].content['application/json'].schema.oneOf
  assert.equal(ok.allOf[0].properties.status, { const: 'OK' })
  assert.ok('amount_paid' in ok.allOf[1].properties, 'the answer fields')
  assert.equal(refused.required, ['status', 'reason'])

  const create = served.paths['/restaurant/api/v1/restaurants'].post
  assert.equal(create.security, [{ walletKey: [] }])
  assert.ok(create.responses['201'], 'the status the detail dialect answers')
  assert.equal(create.responses.default.content['application/json'].schema.required, ['detail'])
  const one = served.paths['/restaurant/api/v1/restaurants/{id}'].get
  assert.equal(one.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1 } }])
  assert.equal(one.security, [{}], 'a public read')
  assert.not.ok('requestBody' in one)

  const search = served.paths['/api/operator/payments'].get
  assert.equal(search.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`), ['query query', 'query status', 'query since', 'query until', 'query limit'])
  const metrics = served.paths['/metrics'].get
  assert.equal(metrics.responses['200'].content, { 'text/plain': { schema: { type: 'string' } } })
})

test.run()
