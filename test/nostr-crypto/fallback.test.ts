// The daemon without its fast secp256k1 engines: when neither the native addon nor the wasm module loads, it says so
// in one log line and serves Nostr requests on pure JS (the relay thread and the signature thread as well); with
// them, it says which engine runs. Through the public interface: the real daemon, its log, a relay client.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { fileURLToPath } from 'node:url'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'

const test = suite('nostr crypto fallback')
const preload = fileURLToPath(new URL('../support/block-modules.js', import.meta.url))
const daemons: TestDaemon[] = []
const clients: PubClient[] = []
test.after(async () => {
  clients.forEach(client => client.close())
  for (const daemon of daemons) await daemon.stop()
})

const lines = (daemon: TestDaemon) =>
  daemon
    .logs()
    .split('\n')
    .filter(line => line.startsWith('{'))
    .map(line => JSON.parse(line) as Record<string, any>)

async function roundTrip(daemon: TestDaemon) {
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays, appPubkey: pubkey, timeoutMs: 30_000 })
  clients.push(client)
  const reply = await client.call('GetUserInfo')
  assert.is(reply.status, 'OK')
}

test('with the native addon: one info line names it, for the daemon and for the relay thread', async () => {
  const daemon = await startDaemon()
  daemons.push(daemon)
  await roundTrip(daemon)
  const engineLines = lines(daemon).filter(line => /Nostr signatures and conversation keys/.test(line.msg))
  assert.equal(engineLines.map(line => [line.room, line.engine, line.level]), [['nostr', 'native', 30], ['relay', 'native', 30]])
})

// tiny-secp256k1 also serves other rooms (LND invoices, key derivation): it is blocked for the Nostr crypto room only.
test('neither addon nor wasm loads: one warning per thread says pure JS and why, and requests are still served', async () => {
  const daemon = await startDaemon({ env: { NODE_OPTIONS: `--import ${preload}`, RELAYPAY_TEST_BLOCK_MODULES: 'bcrypto,tiny-secp256k1@/nostr-crypto/' } })
  daemons.push(daemon)
  await roundTrip(daemon)
  const engineLines = lines(daemon).filter(line => /Nostr signatures and conversation keys/.test(line.msg))
  assert.equal(engineLines.map(line => [line.room, line.engine, line.level]), [['nostr', 'js', 40], ['relay', 'js', 40]])
  const [main] = engineLines
  assert.match(main!.msg, /fall back to pure JavaScript \(native: .*blocked by the test.*; wasm: .*blocked by the test.*\)/)
  assert.equal(main!.unavailable.map((skipped: { engine: string }) => skipped.engine), ['native', 'wasm'])
})

test('[nostr] crypto = "js" (here through RELAYPAY_NOSTR_CRYPTO) is taken as asked, without a warning', async () => {
  const daemon = await startDaemon({ env: { RELAYPAY_NOSTR_CRYPTO: 'js' } })
  daemons.push(daemon)
  await roundTrip(daemon)
  const engineLines = lines(daemon).filter(line => /Nostr signatures and conversation keys/.test(line.msg))
  assert.equal(engineLines.map(line => [line.room, line.engine, line.level]), [['nostr', 'js', 30], ['relay', 'js', 30]])
})

test.run()
