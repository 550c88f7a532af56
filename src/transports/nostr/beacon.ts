// The service beacons: every 60 s (and when the relays change) each app publishes two kind-30078 (NIP-78,
// addressable) events: `d` = "Lightning.Pub" with its name and fees, which wallets read for liveness, name and fees;
// then `d` = "clink-node" (upstream's next version), which tells CLINK clients the relays, fees, the CLINK kinds
// served and the proof of work an enroll needs, and, when the operator gives them, the operator's key, a website and
// a description (in upstream's order; an app avatar, which upstream also sends, relaypay's apps do not have).
// The timer can be stopped and the clock injected, so a test drives it with `announce()` instead of waiting.
import type { Event } from 'nostr-tools/pure'
import { type Clock } from '../../bus/index.js'
import type { AppKey } from '../../nostr-codecs/index.js'
import type { SendEvent } from './sign.js'
import { unixSeconds } from '../../units/index.js'
import { appDataKind as beaconKind, clinkKinds } from '../../nostr-kinds/index.js'

export const beaconTag = 'Lightning.Pub'
export const clinkBeaconTag = 'clink-node'
export const beaconIntervalMs = 60_000

export interface BeaconDeps {
  apps(): AppKey[]
  fees: { serviceFeeFloor: number; serviceFeeBps: number }
  /** Signs and publishes an event of ours. */
  send: SendEvent
  clock: Clock
  intervalMs?: number
  /** The relays clients reach the node on (the public ones when the operator names them). */
  relays(): readonly string[]
  /** The proof of work a CLINK enroll of a new key needs (`[clink] enroll_pow_bits`); 0: none, left out. */
  enrollDifficulty: number
  /** The node's self-description in the clink-node beacon; each left out when empty. */
  about?: BeaconAbout
}

export interface BeaconAbout {
  /** The operator's key (hex), as an `operator` tag. */
  operator?: string
  website?: string
  description?: string
  /** An image both beacons name as each app's `avatarUrl` (`[clink] beacon_avatar_url`). */
  avatarUrl?: string
}

export interface Beacon {
  /** Publishes one beacon per app now. */
  announce(): void
  /** Announces now and then every interval, until stop(). */
  start(): void
  stop(): void
}

export function serviceBeacon(deps: BeaconDeps): Beacon {
  const about = deps.about ?? {}
  let timer: NodeJS.Timeout | undefined
  const announce = () => {
    const createdAt = unixSeconds(deps.clock.now())
    for (const app of deps.apps()) {
      const avatar = about.avatarUrl ? { avatarUrl: about.avatarUrl } : {}
      const content = JSON.stringify({ type: 'service', name: app.name, ...avatar, fees: deps.fees })
      deps.send({ kind: beaconKind, created_at: createdAt, tags: [['d', beaconTag]], content }, app.secretKey)
      const clink = {
        name: app.name,
        relays: [...deps.relays()],
        fees: deps.fees,
        supported_kinds: clinkKinds, // the CLINK kinds served: offers, debits, manage, enroll
        ...avatar,
        ...(about.website ? { website: about.website } : {}),
        ...(about.description ? { description: about.description } : {}),
        ...(deps.enrollDifficulty > 0 ? { enroll_difficulty: deps.enrollDifficulty } : {}),
      }
      const tags = [['d', clinkBeaconTag], ['clink_version', '1'], ...(about.operator ? [['operator', about.operator]] : [])]
      deps.send({ kind: beaconKind, created_at: createdAt, tags, content: JSON.stringify(clink) }, app.secretKey)
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
