// What the swap tests share: a fake LND, fake Boltz providers on its chain, and the real daemon on the fake LND
// with swaps enabled; a user funded over Lightning; destination addresses the daemon never saw.
import * as assert from 'uvu/assert'
import { decode } from 'light-bolt11-decoder'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { p2wpkh } from '@scure/btc-signer'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { startFakeBoltz, type FakeBoltz } from '../support/fake-boltz/fake-boltz.js'
import type { Behaviour } from '../support/fake-boltz/swap-terms.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { balanceOf, call, ok } from '../support/money.js'
import { until } from '../support/until.js'

export const jwtSecret = 'swap-tests-secret-0123456789abcdefghij'
const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }

export { until }

/** A P2WPKH address of a key nobody here keeps: somewhere outside the service to send coins to. */
export function outsideAddress(): string {
  return p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), regtest).address!
}

export interface SwapWorld {
  lnd: FakeLnd
  /** While true (the default), the fake chain mines a block as soon as a transaction enters its mempool. */
  autoMine: boolean
  providers: FakeBoltz[]
  daemon: TestDaemon
  user: TestAppUser
  admin: string
  /** Starts the daemon again on the same data dir (after stop or kill). */
  restart(): Promise<void>
  balance(): Promise<number>
  userCall(path: string, body?: unknown): Promise<any>
  adminCall(path: string, body?: unknown): Promise<any>
  close(): Promise<void>
}

export function daemonConfig(lnd: FakeLnd, providers: FakeBoltz[], opts: { zeroConf?: boolean[]; payWaitSeconds?: number } = {}): string {
  const c = lnd.connection
  const list = providers.map((p, i) => `{ http = "${p.url}", ws = "${p.wsUrl}", zero_conf = ${opts.zeroConf?.[i] === true} }`).join(', ')
  return (
    jwtSecretConfig(jwtSecret) +
    `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n` +
    `[swaps]\nenabled = true\nproviders = [${list}]\nblock_poll_seconds = 1\npay_wait_seconds = ${opts.payWaitSeconds ?? 30}\n`
  )
}

export type ProviderSetup = Partial<Behaviour> & { zeroConf?: boolean }

export async function startSwapWorld(
  opts: { providers?: ProviderSetup[]; fundSats?: number; autoMine?: boolean; payWaitSeconds?: number } = {},
): Promise<SwapWorld> {
  const lnd = await startFakeLnd({ network: 'regtest' })
  const setups = opts.providers ?? [{}]
  const providers = await Promise.all(setups.map(({ zeroConf: _zeroConf, ...behaviour }) => startFakeBoltz({ lnd, behaviour })))
  const config = daemonConfig(lnd, providers, {
    zeroConf: setups.map(p => p.zeroConf === true),
    ...(opts.payWaitSeconds !== undefined ? { payWaitSeconds: opts.payWaitSeconds } : {}),
  })
  let daemon: TestDaemon
  let user: TestAppUser
  try {
    daemon = await startDaemon({ config })
    user = await createAppWithUser(daemon, { jwtSecret, identifier: 'swapper' })
  } catch (err) {
    // Nothing may stay open, or the test process never exits.
    console.error('swap world did not start:', err)
    for (const p of providers) await p.close()
    await lnd.close()
    throw err
  }
  const world: SwapWorld = {
    lnd,
    autoMine: opts.autoMine ?? true,
    providers,
    get daemon() {
      return daemon
    },
    user,
    admin: daemon.adminToken,
    async restart() {
      daemon = await startDaemon({ config, dataDir: daemon.dataDir })
    },
    balance: () => balanceOf(daemon, user.appToken, user.identifier),
    userCall: (path, body = {}) => call(daemon, path, `Bearer ${user.userToken}`, body),
    adminCall: (path, body = {}) => call(daemon, path, daemon.adminToken, body),
    async close() {
      await daemon.stop()
      for (const p of providers) await p.close()
      await lnd.close()
    },
  }
  // A block right after each broadcast, as if miners were quick: lockups confirm and swaps go through.
  lnd.node.chain.onPublish(() => {
    if (world.autoMine) setImmediate(() => lnd.node.mine())
  })
  const fund = opts.fundSats ?? 100_000
  if (fund > 0) {
    // Funded over "Lightning": the fake LND settles the user's invoice as if another node paid it.
    const { invoice } = await ok(daemon, '/api/user/invoice/new', `Bearer ${user.userToken}`, { amountSats: fund, memo: 'funding' })
    const hash = (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value
    lnd.settleInvoice(hash)
    await until(async () => (await world.balance()) === fund, 'the funding to be credited')
  }
  return world
}
