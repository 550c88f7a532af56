// The service beacon: every 60 s each app publishes a kind-30078 (NIP-78,
// addressable) event `d` = "Lightning.Pub" with its name and fees. Wallets read it for liveness, name and fees.
// The timer can be stopped and the clock injected, so a test drives it with `announce()` instead of waiting.
import type { Event } from 'nostr-tools/pure'
import { type Clock } from '../../bus/index.js'
import type { AppKey } from './app-keys.js'
import type { SendEvent } from './sign.js'
import { unixSeconds } from '../../units/index.js'

export const beaconKind = 30078
export const beaconTag = 'Lightning.Pub'
export const beaconIntervalMs = 60_000

export interface BeaconDeps {
  apps(): AppKey[]
  fees: { serviceFeeFloor: number; serviceFeeBps: number }
  /** Signs and publishes an event of ours. */
  send: SendEvent
  clock: Clock
  intervalMs?: number
}

export interface Beacon {
  /** Publishes one beacon per app now. */
  announce(): void
  /** Announces now and then every interval, until stop(). */
  start(): void
  stop(): void
}

export function serviceBeacon(deps: BeaconDeps): Beacon {
  let timer: NodeJS.Timeout | undefined
  const announce = () => {
    const createdAt = unixSeconds(deps.clock.now())
    for (const app of deps.apps()) {
      const content = JSON.stringify({ type: 'service', name: app.name, fees: deps.fees })
      deps.send({ kind: beaconKind, created_at: createdAt, tags: [['d', beaconTag]], content }, app.secretKey)
    }
  }
  return {
    announce,
    start() {
      if (timer) return
      announce()
      timer = setInterval(announce, deps.intervalMs ?? beaconIntervalMs)
      timer.unref()
    },
    stop() {
      clearInterval(timer)
      timer = undefined
    },
  }
}
