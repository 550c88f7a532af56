// While the daemon restarts, its embedded relay listens before the daemon's own links have subscribed. A wallet
// that reconnects in that moment must not have its requests refused as "addressed to no key served": the relay
// asks strangers to come back (HTTP 503) until the daemon listens on it, and takes their requests from then on.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { spawnCollecting } from '../support/spawned.js'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { cliPath, relaypayArgs, startDaemon, storeEnv } from '../support/daemon.js'
import { appProfile } from '../support/pub-client.js'
import { freePort } from '../support/ports.js'
import { connectWire, type WireClient } from './wire-client.js'

const test = suite('embedded relay during a start')

test("a wallet connecting while the daemon starts is let in only once the daemon listens, and its request is taken", async () => {
  const first = await startDaemon()
  const dataDir = first.dataDir
  await first.stop()
  const { pubkey } = appProfile(dataDir)
  const port = await freePort()
  const child = spawnCollecting(process.execPath, relaypayArgs(cliPath, ['start', '--data-dir', dataDir, '--http-port', '0']), {
    // The books of the first start (PostgreSQL in the suite's PostgreSQL run): the keys it served are in them.
    env: { ...process.env, RELAYPAY_NODE_MOCK: 'true', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(port), ...(await storeEnv(dataDir, {})) },
  })
  let wallet: WireClient | undefined
  try {
    // Signed beforehand and sent the moment a connection opens, as a wallet's queued request would be.
    const request = finalizeEvent(
      { kind: 21000, created_at: Math.floor(Date.now() / 1000), tags: [['p', pubkey]], content: 'not decryptable: the relay only carries it' },
      generateSecretKey(),
    )
    // Knock as fast as a reconnecting wallet would, from before the relay listens.
    let turnedAway = 0
    const started = Date.now()
    while (!wallet) {
      if (child.exitCode !== null) throw new Error(`the daemon exited:\n${child.output()}`)
      if (Date.now() - started > 60_000) throw new Error(`the relay never let the wallet in:\n${child.output()}`)
      try {
        wallet = await connectWire(`ws://127.0.0.1:${port}`)
      } catch (err) {
        if (/503/.test((err as Error).message)) turnedAway++
        await new Promise(resolve => setTimeout(resolve, 10))
      }
    }
    const [accepted, reason] = await wallet.publish(request)
    assert.ok(accepted, `the relay took the request (${reason}); turned away before: ${turnedAway}`)
    assert.ok(turnedAway > 0, 'the wallet knocked while the daemon was starting (else this test saw no start)')
  } finally {
    wallet?.close()
    await child.stop()
  }
})

test.run()
