// The daemon's own events (replies, pushes, CLINK answers, beacons, announcements): signed on the signature thread
// (src/nostr-crypto) and published in the order they were sent. The id is computed here, so the thread only turns
// an id into a signature and what is published is exactly what was asked.
import type { Logger } from 'pino'
import type { Event, EventTemplate } from 'nostr-tools/pure'
import { eventId, unsignedEvent, type SchnorrThread } from '../../nostr-crypto/index.js'

export interface SigningOutbox {
  /**
   * Signs the template as the key's owner (a copy; the template is left as given) and publishes it, in order; with
   * `then`, hands it there instead of publishing it (an announcement, which is sent by its own policy).
   */
  send(template: EventTemplate, secretKey: Uint8Array, then?: (event: Event) => void): void
  /** Resolves once everything sent so far is published. */
  drain(): Promise<void>
}

export function signingOutbox(opts: {
  thread: SchnorrThread
  publish(event: Event): void
  log: Logger
}): SigningOutbox {
  const { thread, publish, log } = opts
  /** Events in the order sent; each is published once it and every one before it is signed. */
  const waiting: { event?: Event; then?: (event: Event) => void }[] = []
  let drained: (() => void)[] = []

  const publishReady = () => {
    while (waiting.length > 0 && waiting[0]!.event) {
      const { event, then } = waiting.shift()!
      try {
        ;(then ?? publish)(event!)
      } catch (err) {
        log.error({ err }, 'publishing a signed event failed')
      }
    }
    if (waiting.length > 0) return
    const resolved = drained
    drained = []
    for (const resolve of resolved) resolve()
  }

  return {
    send(template, secretKey, then) {
      const unsigned = unsignedEvent(template, secretKey)
      const id = eventId(unsigned)
      const slot: { event?: Event; then?: (event: Event) => void } = then ? { then } : {}
      waiting.push(slot)
      thread.sign(id, secretKey, sig => {
        slot.event = { ...unsigned, id, sig }
        publishReady()
      })
    },
    drain() {
      if (waiting.length === 0) return Promise.resolve()
      return new Promise(resolve => drained.push(resolve))
    },
  }
}
