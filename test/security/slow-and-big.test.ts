// Oversized requests and slow clients, over raw sockets against the real daemon: a body over [http] max_body_bytes
// is refused (413) without being read, declared or chunked; a client that connects and says nothing, one that
// sends its headers a line at a time (slowloris) and one that trickles its body are all cut off by the server's
// timeouts ([http] headers_timeout_seconds, request_timeout_seconds), and the daemon keeps answering meanwhile.
// Over the relay, an event or a frame beyond the embedded relay's limits is refused and never reaches the daemon.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { configSchema } from '../../src/config/schema.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { until } from '../support/until.js'
import { appProfile, PubClient, sleep } from '../support/pub-client.js'

const headersTimeoutSeconds = 2
const requestTimeoutSeconds = 3
/** Generous: the server checks its timers every ≤ 1 s, and this machine is busy. */
const cutOffWithinMs = 15_000

const http = suite('the HTTP server against big and slow clients')
let daemon: TestDaemon
let port: number

http.before(async () => {
  daemon = await startDaemon({
    // Debug (the harness sets the level in the environment, which wins over the file): a refusal by Node's HTTP
    // parser is logged with its code only there, and a failure here prints it.
    env: { RELAYPAY_LOG_LEVEL: 'debug' },
    config: `[http]\nmax_body_bytes = 4096\nheaders_timeout_seconds = ${headersTimeoutSeconds}\nrequest_timeout_seconds = ${requestTimeoutSeconds}\n`,
  })
  port = Number(new URL(daemon.url).port)
})
http.after(async () => {
  await daemon?.stop()
})

interface RawOutcome {
  /** Everything the server sent back. */
  answer: string
  /** How long after connecting the server closed the connection. */
  closedAfterMs: number
  /** Bytes the client managed to write before the server closed. */
  written: number
}

/**
 * Connects, writes `head` at once, then one `drip` chunk every `everyMs` until the server closes the connection
 * (or `cutOffWithinMs` passes, which fails the caller's assertion).
 */
function rawClient(head: string, drip: string, everyMs: number): Promise<RawOutcome> {
  return new Promise(resolve => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1')
    let answer = ''
    let written = 0
    const write = (text: string) => {
      if (socket.destroyed || socket.writableEnded) return
      socket.write(text, () => (written += Buffer.byteLength(text)))
    }
    // The drip starts once the head is on its way: started before the connection (as it was), a busy machine let a
    // chunk be queued ahead of the head, and the server rightly refused "400\r\nxxx…" as a request with no method.
    let timer: NodeJS.Timeout | undefined
    socket.on('connect', () => {
      if (head) write(head)
      if (drip) timer = setInterval(() => write(drip), everyMs)
    })
    const giveUp = setTimeout(() => socket.destroy(), cutOffWithinMs + 5000)
    socket.on('data', chunk => (answer += chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ answer, closedAfterMs: Date.now() - started, written })
    })
  })
}

const still = async () => {
  const res = await daemon.request('GET', '/api/health')
  assert.ok(res.status > 0 && res.status < 500, `the daemon still answers (${res.status})`)
}

http('the defaults bound both timeouts', () => {
  const defaults = configSchema.parse({}).http
  assert.ok(defaults.headers_timeout_seconds > 0 && defaults.headers_timeout_seconds <= 60)
  assert.ok(defaults.request_timeout_seconds > 0 && defaults.request_timeout_seconds <= 600)
  assert.throws(() => configSchema.parse({ http: { headers_timeout_seconds: 20, request_timeout_seconds: 10 } }))
})

http('a connection that never sends a request is closed', async () => {
  const outcome = await rawClient('', '', 0)
  assert.ok(outcome.closedAfterMs < cutOffWithinMs, `closed after ${outcome.closedAfterMs} ms`)
  assert.ok(outcome.closedAfterMs >= headersTimeoutSeconds * 1000 - 100, `not before the timeout (${outcome.closedAfterMs} ms)`)
  await still()
})

http('slowloris: headers sent a line at a time are cut off at the headers timeout', async () => {
  const outcome = await rawClient('POST /api/user/info HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: a\r\n', 200)
  assert.ok(outcome.closedAfterMs < cutOffWithinMs, `closed after ${outcome.closedAfterMs} ms`)
  assert.ok(outcome.answer === '' || outcome.answer.startsWith('HTTP/1.1 408'), outcome.answer)
  await still()
})

http('a body trickled a byte at a time is cut off at the request timeout', async () => {
  const head = 'POST /api/user/info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n'
  const outcome = await rawClient(head, ' ', 200)
  assert.ok(outcome.closedAfterMs < cutOffWithinMs, `closed after ${outcome.closedAfterMs} ms`)
  assert.ok(outcome.written < 4000 + head.length, 'cut off before the body was complete')
  assert.ok(outcome.answer === '' || outcome.answer.startsWith('HTTP/1.1 408'), outcome.answer)
  await still()
})

http('a declared body over max_body_bytes is refused at once, unread', async () => {
  const head = 'POST /api/admin/app/add HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n'
  const outcome = await rawClient(head, '', 0)
  assert.match(outcome.answer, /request body too large: the limit is 4096 bytes/)
  assert.ok(outcome.closedAfterMs < cutOffWithinMs)
  await still()
})

http('a chunked body that grows past max_body_bytes is refused without reading it all', async () => {
  const head = 'POST /payroll/api/v1/contracts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'
  const chunk = 'x'.repeat(1024)
  const outcome = await rawClient(head, `${chunk.length.toString(16)}\r\n${chunk}\r\n`, 5)
  // The whole outcome says what came instead of a 413, with the parser's refusals and the route's access lines.
  const refusals = () => daemon.logs().split('\n').filter(line => line.includes('a request the HTTP parser refused')).slice(-3)
  // The daemon's line about a parser refusal comes over its stdout after the answer: waited for when it matters.
  if (!outcome.answer.startsWith('HTTP/1.1 413')) await until(() => refusals().length > 0, 'a parser refusal in the log', 5_000).catch(() => {})
  const parserRefusals = refusals()
  // And whether the request reached a handler at all: its access line, if any.
  const accessLines = daemon.logs().split('\n').filter(line => line.includes('"room":"access"') && line.includes('"operation":"PayrollContractCreate"')).slice(-2)
  assert.match(
    outcome.answer,
    /^HTTP\/1\.1 413/,
    `the server answered ${JSON.stringify(outcome.answer.slice(0, 300))} and closed after ${outcome.closedAfterMs} ms, ${outcome.written} bytes written; ` +
      `the parser's last refusals: ${parserRefusals.join(' | ') || 'none'}; access lines of the route: ${accessLines.join(' | ') || 'none'}`,
  )
  assert.match(outcome.answer, /request body too large/)
  await still()
})

http('a pub-dialect body over the limit is answered in the dialect, and a body just under it is read', async () => {
  const over = await daemon.request('POST', '/api/admin/app/add', { rawBody: JSON.stringify({ name: 'x'.repeat(5000) }), headers: { 'content-type': 'application/json', authorization: daemon.adminToken } })
  assert.equal(over.json, { status: 'ERROR', reason: 'request body too large: the limit is 4096 bytes' })
  const under = await daemon.request('POST', '/api/admin/app/add', { rawBody: JSON.stringify({ name: 'y'.repeat(3000), allow_user_creation: false }), headers: { 'content-type': 'application/json', authorization: daemon.adminToken } })
  assert.is(under.json.status, 'OK', under.text)
})

const relay = suite('the embedded relay against oversized events and frames')
let relayDaemon: TestDaemon
relay.before(async () => {
  relayDaemon = await startDaemon()
})
relay.after(async () => {
  await relayDaemon?.stop()
})

relay('a request event beyond the message limit is refused by the relay and never answered', async () => {
  const { relays, pubkey } = appProfile(relayDaemon.dataDir)
  const client = await PubClient.connect({ relays, appPubkey: pubkey, timeoutMs: 10_000 })
  try {
    // 300 kB of body: over the relay's 256 KiB message limit once encrypted.
    const { event, requestId } = client.request('UpdateCallbackUrl', { url: 'https://shop.example/' + 'a'.repeat(300_000) })
    await client.publish(event, relays, 3000).catch(() => undefined)
    await client.ok('GetUserInfo')
    await sleep(200)
    assert.equal(client.messages(requestId), [])
    assert.is((await client.ok('GetUserInfo')).callback_url, '')
  } finally {
    client.close()
  }
})

relay('a WebSocket frame beyond the frame limit closes the connection (1009) and the relay keeps serving', async () => {
  const { relays } = appProfile(relayDaemon.dataDir)
  const socket = new WebSocket(relays[0]!)
  await new Promise((resolve, reject) => socket.on('open', resolve).on('error', reject))
  const closed = new Promise<number>(resolve => socket.on('close', code => resolve(code)))
  socket.send(JSON.stringify(['EVENT', { content: 'z'.repeat(2 * 1024 * 1024) }]))
  assert.is(await closed, 1009)
  const again = new WebSocket(relays[0]!)
  await new Promise((resolve, reject) => again.on('open', resolve).on('error', reject))
  again.close()
  assert.ok(fs.existsSync(path.join(relayDaemon.dataDir, 'daemon.json')))
})

http.run()
relay.run()
