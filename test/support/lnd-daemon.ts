// A daemon on the fake LND, as the wallet page's tests start one: its `[node]` section, an app user funded by an
// invoice of theirs the fake settles, and the embedded relay it serves NWC on.
import fs from 'node:fs'
import path from 'node:path'
import { decode } from 'light-bolt11-decoder'
import { startDaemon, type TestDaemon } from './daemon.js'
import type { FakeLnd } from './fake-lnd/fake-lnd.js'
import type { TestAppUser } from './accounts.js'
import { balanceOf, ok } from './money.js'
import { until } from './until.js'

/** The `[node]` section that points a daemon at the fake LND. */
export const fakeLndConfig = (fake: FakeLnd): string =>
  `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${fake.connection.socket}"\n` +
  `lnd_cert_path = "${fake.connection.certPath}"\nlnd_macaroon_path = "${fake.connection.macaroonPath}"\n`

/** Pays `sats` into the user's wallet over the fake LND; resolves once the wallet shows them. */
export async function fundOverFakeLnd(daemon: TestDaemon, fake: FakeLnd, user: TestAppUser, sats: number): Promise<void> {
  const before = await balanceOf(daemon, user.appToken, user.identifier)
  const { invoice } = await ok(daemon, '/api/user/invoice/new', user.userToken, { amountSats: sats, memo: 'funding' })
  fake.settleInvoice((decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value)
  await until(async () => (await balanceOf(daemon, user.appToken, user.identifier)) === before + sats, 'the funding to be credited')
}

/** The daemon's embedded relay, where its NWC connections are served. */
export const embeddedRelayUrl = (daemon: TestDaemon): string =>
  JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]

/**
 * A daemon whose embedded relay listens on `relayPort`: new with `config`, or started again on its `dataDir`. Its
 * clients find the relay again after the restart.
 */
export const startOnRelayPort = (relayPort: number, from: { config: string } | { dataDir: string }): Promise<TestDaemon> =>
  startDaemon({ env: { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(relayPort) }, ...from })
