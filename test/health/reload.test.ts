// SIGHUP as an operator sends it: edit relaypay.toml, `kill -HUP`, read the one log line saying what was applied
// and what needs a restart, see the change take effect (log level, body limit); a broken file is logged and the
// running config kept; the daemon keeps serving throughout, and SIGTERM still stops it cleanly.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { WebSocket } from 'ws'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { until } from '../support/until.js'
import { onHandshakeRefusal } from '../support/handshake-refusal.js'

const reload = suite('SIGHUP reload')


const lines = (daemon: TestDaemon) =>
  daemon
    .logs()
    .split('\n')
    .filter(line => line.startsWith('{'))
    .map(line => JSON.parse(line))

/** A frame past the embedded relay's 1 MiB frame limit: ws refuses it, and the relay logs that at debug. */
const oversizedFrame = async (relayUrl: string) => {
  const socket = new WebSocket(relayUrl)
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  socket.send('x'.repeat(1200 * 1024))
  await new Promise(resolve => socket.once('close', resolve))
}
const debugLine = 'relay client connection failed'

/** A body past a limit of 2048 bytes, under the default 1 MiB. */
const bigBody = { name: 'x'.repeat(4096) }

let daemon: TestDaemon
let configFile: string
let relayUrl: string

reload.before(async () => {
  // RELAYPAY_LOG_LEVEL is unset so the file's level rules (the environment would win over it).
  daemon = await startDaemon({
    config: '[log]\nlevel = "info"\n',
    env: { RELAYPAY_LOG_LEVEL: undefined as unknown as string },
  })
  configFile = path.join(daemon.dataDir, 'relaypay.toml')
  relayUrl = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]
})

reload.after(async () => {
  if (daemon.process.exitCode === null) await daemon.stop()
})

const hup = async (expect: string) => {
  const before = lines(daemon).length
  daemon.process.kill('SIGHUP')
  await until(() => lines(daemon).slice(before).some(line => String(line.msg).startsWith(expect)), `a log line "${expect}…"`)
  return lines(daemon).slice(before).find(line => String(line.msg).startsWith(expect))
}

reload('a reload applies the log level and limits, names what needs a restart, and keeps serving', async () => {
  await oversizedFrame(relayUrl)
  await new Promise(resolve => setTimeout(resolve, 300))
  assert.not.ok(daemon.logs().includes(debugLine), 'no debug line at level info')
  const accepted = await daemon.request('POST', '/api/admin/app/add', { body: bigBody, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.not.match(accepted.text, /too large/)

  fs.writeFileSync(
    configFile,
    '[log]\nlevel = "debug"\n[http]\nmax_body_bytes = 2048\n[fees]\nservice_fee_bps = 10\n',
  )
  const line = await hup('config reloaded')
  assert.equal(line.applied, ['http.max_body_bytes', 'log.level'])
  assert.equal(line.needs_restart, ['fees.service_fee_bps'])
  assert.is(line.msg, 'config reloaded: applied http.max_body_bytes, log.level; needs a restart: fees.service_fee_bps')
  // Keys appear once in the line (pino would print a duplicate twice).
  const raw = daemon.logs().split('\n').find(text => text.includes('"config reloaded'))!
  assert.is(raw.match(/"applied"/g)!.length, 1)

  // The relay room's logger (a child made at start) now writes debug lines.
  await oversizedFrame(relayUrl)
  await until(() => daemon.logs().includes(debugLine), 'the debug line after the reload')
  const refused = await daemon.request('POST', '/api/admin/app/add', { body: bigBody, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.match(refused.text, /too large: the limit is 2048 bytes/)
  assert.equal((await daemon.request('GET', '/api/health')).json, { status: 'OK' })
  assert.is((await daemon.request('GET', '/readyz')).status, 200)
})

reload('a file that does not parse is logged and the running config kept; a second reload names the restart key again', async () => {
  fs.writeFileSync(configFile, '[log]\nlevel = "debug"\n[http\nmax_body_bytes = ')
  const failed = await hup('config reload failed')
  assert.is(failed.level, 50)
  assert.match(failed.error, /not valid TOML/)
  assert.is(daemon.process.exitCode, null)
  const refused = await daemon.request('POST', '/api/admin/app/add', { body: bigBody, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.match(refused.text, /the limit is 2048 bytes/, 'the running limit is kept')

  // Back to info and the default limit; the fee change was never applied, so it still needs a restart.
  fs.writeFileSync(configFile, '[log]\nlevel = "warn"\n[fees]\nservice_fee_bps = 10\n')
  const line = await hup('config reloaded')
  assert.equal(line.applied, ['http.max_body_bytes', 'log.level'])
  assert.equal(line.needs_restart, ['fees.service_fee_bps'])
  const accepted = await daemon.request('POST', '/api/admin/app/add', { body: bigBody, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  assert.not.match(accepted.text, /too large/)
})

/**
 * Opens `count` sockets to the relay at once and resolves with how each one ended up: `open` once the relay answered
 * a REQ on it (accepted and serving), `refused <status>: <body>` for an upgrade answered with an HTTP error (the relay
 * refuses an address at its cap before the handshake, after [nostr] relay_connection_refusal_delay_seconds), or
 * `closed: <reason>` when it was closed after the handshake.
 */
const openSockets = async (url: string, count: number) => {
  const sockets = Array.from({ length: count }, () => new WebSocket(url))
  const states = await Promise.all(
    sockets.map(
      socket =>
        new Promise<string>(resolve => {
          socket.once('open', () => socket.send(JSON.stringify(['REQ', 'probe', { kinds: [1], limit: 0 }])))
          socket.on('message', data => {
            if (String(data).startsWith('["EOSE"')) resolve('open')
          })
          onHandshakeRefusal(socket, ({ status, body }) => resolve(`refused ${status}: ${body}`))
          socket.once('close', (_code, reason) => resolve(`closed: ${reason.toString()}`))
          socket.once('error', err => resolve(`error: ${err.message}`))
        }),
    ),
  )
  sockets.forEach(socket => socket.terminate())
  return states
}

reload('a reload hands the embedded relay its new limits: a lower cap per address refuses the extra sockets', async () => {
  const before = await openSockets(relayUrl, 3)
  assert.equal(before, ['open', 'open', 'open'])
  fs.writeFileSync(configFile, '[log]\nlevel = "warn"\n[nostr]\nrelay_max_connections_per_address = 2\n')
  daemon.process.kill('SIGHUP')
  // The line is at info, silenced at warn: the effect is what shows it.
  let after: string[] = []
  for (let attempt = 0; attempt < 20; attempt++) {
    after = await openSockets(relayUrl, 3)
    if (after.some(state => state !== 'open')) break
  }
  assert.equal(after.filter(state => state === 'open').length, 2, JSON.stringify(after))
  const refusal = 'rate-limited: too many connections from your address'
  assert.ok(after.some(state => state === `refused 429: ${refusal}` || state === `closed: ${refusal}`), JSON.stringify(after))
  assert.equal((await daemon.request('GET', '/api/health')).json, { status: 'OK' })
})

reload('SIGTERM still stops the daemon cleanly after reloads; at level warn its info lines are gone', async () => {
  const before = lines(daemon).length
  assert.is(await daemon.stop(), 0)
  assert.not.ok(lines(daemon).slice(before).some(line => line.msg === 'stopped'), 'info lines are silenced at warn')
})

reload.run()
