// `relaypay relay`: the embedded relay on its own, for a machine that serves relays but no wallet. It is a general
// relay (no daemon here tells it which keys it serves), under the `[nostr] relay_*` budgets and quotas of the data
// dir's relaypay.toml and the environment: the same defaults as the daemon's embedded relay, meant for the internet.
import path from 'node:path'
import { loadConfig } from '../config/index.js'
import { relayLimitsOf, startRelay } from '../relay/index.js'
import { chooseEngine, createEventVerifier } from '../nostr-crypto/index.js'
import { createLogger, logStyle } from '../logging/index.js'

export async function runRelay(opts: { dataDir: string; host: string; port: number }): Promise<void> {
  const config = loadConfig({ flags: { data_dir: opts.dataDir } })
  const log = createLogger({ base: { pid: process.pid } }, logStyle(config.log.format))
  await chooseEngine(config.nostr.crypto, log)
  const verifier = await createEventVerifier()
  let relay
  try {
    relay = await startRelay({
      host: opts.host,
      port: opts.port,
      dataDir: path.resolve(opts.dataDir),
      log,
      verifyEvent: verifier.verify,
      limits: { ...relayLimitsOf(config.nostr), openWrites: true },
    })
  } catch (err) {
    // A port in use is a setting to change, said in one line (the flag is the only setting here).
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    process.stderr.write(`relaypay: port ${opts.port} is in use: choose another with --port\n`)
    process.exit(1)
  }
  log.info({ url: relay.url, verifier: verifier.engine }, 'relay listening')
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    relay.close().then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
