// Relays a caller names rather than the operator (the relays of a zap request, where its receipt goes): the pool's
// connections to them. A stranger chooses these URLs, so each connection goes through the SSRF guard of the
// callbacks room (its WebSocket refuses a forbidden URL and, at the DNS lookup, a name resolving into a private
// network), is opened only when something is to be sent there, is closed once nothing has been sent for a while,
// and only so many are held at once.
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { guardedWebSocket, type GuardOptions } from '../../callbacks/index.js'

/**
 * Caller-named relays connected at once. A zap request names at most ten, but anyone may send many zap requests, each
 * naming other relays: past this bound a receipt to a new relay waits for its next try (announcements retry with
 * backoff) instead of opening another connection, so the number of sockets never follows what strangers send.
 */
export const maxCallerRelays = 32
/** A caller relay nothing was sent to for this long is closed: receipts to one relay come seldom. */
export const callerIdleMs = 30_000

export interface CallerRelays {
  /** Sends once to `url`; resolves when the relay accepted the event, rejects otherwise (refused, unreachable, full). */
  publish(url: string, event: Event, timeoutMs: number): Promise<void>
  /** How many caller relays are connected or connecting now. */
  size(): number
  /** Waits up to `graceMs` for what was sent to be confirmed, then closes every connection. */
  close(graceMs: number): Promise<void>
}

interface CallerLink {
  relay: AbstractRelay
  connected: Promise<void>
  busy: number
  idle?: NodeJS.Timeout
}

export function callerRelays(guard: GuardOptions, log: Logger): CallerRelays {
  const socket = guardedWebSocket(guard) as unknown as typeof globalThis.WebSocket
  const links = new Map<string, CallerLink>()
  const unconfirmed = new Set<Promise<unknown>>()
  let closed = false

  const drop = (url: string, link: CallerLink) => {
    if (links.get(url) !== link) return
    links.delete(url)
    clearTimeout(link.idle)
    link.relay.close()
  }

  const linkTo = (url: string, timeoutMs: number): CallerLink => {
    const known = links.get(url)
    if (known) return known
    // The URL is not logged: a caller's URL may carry what it should not (credentials are refused, but still).
    if (links.size >= maxCallerRelays) throw new Error(`already connected to ${maxCallerRelays} caller-named relays`)
    const relay = new AbstractRelay(url, { verifyEvent: () => true, websocketImplementation: socket })
    relay.publishTimeout = timeoutMs
    const link: CallerLink = { relay, connected: Promise.resolve(), busy: 0 }
    link.connected = relay.connect({ timeout: timeoutMs }).catch((err: unknown) => {
      drop(url, link)
      throw err instanceof Error ? err : new Error(String(err))
    })
    relay.onclose = () => drop(url, link)
    links.set(url, link)
    return link
  }

  return {
    async publish(url, event, timeoutMs) {
      if (closed) throw new Error('the relay pool is closed')
      const link = linkTo(url, timeoutMs)
      link.busy++
      clearTimeout(link.idle)
      const sent = link.connected.then(() => link.relay.publish(event))
      unconfirmed.add(sent)
      try {
        await sent
      } finally {
        unconfirmed.delete(sent)
        link.busy--
        if (link.busy === 0 && links.get(url) === link) {
          link.idle = setTimeout(() => {
            log.debug({ kind: event.kind }, 'closed an idle caller-named relay')
            drop(url, link)
          }, callerIdleMs)
          link.idle.unref()
        }
      }
    },
    size: () => links.size,
    async close(graceMs) {
      closed = true
      let grace: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.allSettled([...unconfirmed]),
        new Promise(resolve => (grace = setTimeout(resolve, graceMs))),
      ])
      clearTimeout(grace)
      for (const [url, link] of [...links]) drop(url, link)
    },
  }
}
