// What a phone gets must work from a phone: the relay address named in every connection string the daemon hands out
// (NWC strings, the app's nprofile, CLINK offer, debit and manage pointers) is `[nostr] public_relays` when the
// operator sets it (the embedded relay's public wss:// name behind a TLS proxy). Without it they name the embedded
// relay's loopback address: the start log says so once, naming the setting, and so does the console's overview data.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { decode } from 'nostr-tools/nip19'
import { decodeNdebit, decodeNmanage, decodeNoffer } from '../../src/nostr-codecs/index.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { ok } from '../support/money.js'

const jwtSecret = 'public-relays-secret-0123456789abcdefghij'
const test = suite('relays named in connection strings')
const daemons: TestDaemon[] = []
test.after(async () => {
  for (const daemon of daemons) await daemon.stop()
})

/** Every relay address a user of `daemon` is handed: NWC, the app's nprofile, the three CLINK pointers. */
async function handedOut(daemon: TestDaemon): Promise<Record<string, string[]>> {
  const user = await createAppWithUser(daemon, { jwtSecret, identifier: 'phone' })
  const nwc = await ok(daemon, '/api/user/nwc/create', user.userToken, { name: 'phone' })
  const info = await ok(daemon, '/api/user/info', user.userToken)
  const profile = decode(fs.readFileSync(path.join(daemon.dataDir, 'app.nprofile'), 'utf8').trim())
  assert.is(profile.type, 'nprofile')
  return {
    nwc: new URL(nwc.connection_uri.replace(/^nostr\+walletconnect:\/\//, 'http://')).searchParams.getAll('relay'),
    nprofile: (profile.data as { relays: string[] }).relays,
    noffer: [decodeNoffer(info.noffer).relay],
    ndebit: [decodeNdebit(info.ndebit).relay],
    nmanage: [decodeNmanage(info.nmanage).relay],
  }
}

const warning = /"msg":"connection strings handed out \(NWC, nprofile, CLINK\) name a loopback relay[^"]*\[nostr\] public_relays/g

test('[nostr] public_relays is named everywhere; no loopback warning', async () => {
  const daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + '[nostr]\npublic_relays = ["wss://relay.pay.example"]\n' })
  daemons.push(daemon)
  const urls = await handedOut(daemon)
  for (const [where, relays] of Object.entries(urls)) assert.equal(relays, ['wss://relay.pay.example'], where)
  assert.is(daemon.logs().match(warning), null)
  // The daemon itself still serves on its embedded relay.
  const info = JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')) as { relays: string[] }
  assert.match(info.relays[0]!, /^ws:\/\/127\.0\.0\.1:\d+$/)
})

test('without it, the embedded relay loopback address everywhere, said once in the log', async () => {
  const daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  daemons.push(daemon)
  const urls = await handedOut(daemon)
  const own = (JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')) as { relays: string[] }).relays[0]!
  for (const [where, relays] of Object.entries(urls)) assert.equal(relays, [own], where)
  assert.is(daemon.logs().match(warning)?.length, 1, daemon.logs())
})

test('a public_relays entry that is not a ws:// or wss:// URL is refused at start', async () => {
  const refused = await startDaemon({ config: '[nostr]\npublic_relays = ["relay.pay.example"]\n' }).then(
    () => undefined,
    (err: Error) => err,
  )
  assert.ok(refused, 'the daemon started')
  assert.match(refused!.message, /nostr\.public_relays\.0/)
  assert.match(refused!.message, /must be a ws:\/\/ or wss:\/\/ URL/)
})

test.run()
