// Publishes extension events (menu items as NIP-15 products, deletions) to the service relays. Publishing never
// blocks or fails the caller: events are queued and retried with backoff, and a relay outage is only logged.
import { SimplePool, useWebSocketImplementation } from 'nostr-tools/pool'
import { AbstractSimplePool } from 'nostr-tools/abstract-pool'
import { finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { CredentialedWebSocket, guardedWebSocket, relayRefusal, type GuardOptions } from '../../callbacks/index.js'
import type { NostrPublisher } from './extension.js'

// To the embedded relay, the daemon's publisher shows its secret like the daemon's other links.
useWebSocketImplementation(CredentialedWebSocket)

const maxAttempts = 8
const firstRetryMs = 1000
const maxRetryMs = 60_000
const publishTimeoutMs = 5000

export interface RunningPublisher extends NostrPublisher {
  /** `relays` overrides the service relays for this one event (zap receipts go to the zap request's relays). */
  publish(template: Parameters<NostrPublisher['publish']>[0], secretKey: Uint8Array, relays?: readonly string[]): string
  /**
   * Why an event's own relay would not be published to (the SSRF guard's reason), or undefined when it would: a
   * service relay always, another where the guard allows it.
   */
  refusalOf(url: string): string | undefined
  /** Resolves when every queued event was published or given up on (tests and a clean stop). */
  idle(): Promise<void>
  stop(): Promise<void>
}

export interface PublisherOptions {
  /**
   * Per-event relays that are not service relays come from callers (a zap request's `relays` tag): with a guard
   * they are reached only where the SSRF guard allows, and refused ones are dropped.
   */
  guard?: GuardOptions
}

export function createPublisher(relays: readonly string[], log: Logger, nowSeconds: () => number, opts: PublisherOptions = {}): RunningPublisher {
  const pool = new SimplePool()
  const { guard } = opts
  const callerPool = guard
    ? new AbstractSimplePool({ verifyEvent, maxWaitForConnection: 3000, websocketImplementation: guardedWebSocket(guard) as unknown as typeof globalThis.WebSocket })
    : undefined
  const callerOpened = new Set<string>()
  const pending = new Set<Promise<void>>()
  const timers = new Set<NodeJS.Timeout>()
  // Every relay ever published to, so that stop() closes the per-event ones too.
  const opened = new Set<string>(relays)
  let stopped = false

  const refusalOf = guard ? relayRefusal(relays, guard) : () => undefined

  const attempt = async (event: ReturnType<typeof finalizeEvent>, targets: readonly string[], tries: number): Promise<void> => {
    if (stopped) return
    const service = callerPool ? targets.filter(url => relays.includes(url)) : [...targets]
    const fromCaller = callerPool ? targets.filter(url => !relays.includes(url)) : []
    const results = await Promise.allSettled(
      [...pool.publish(service, event), ...(fromCaller.length > 0 ? callerPool!.publish(fromCaller, event) : [])].map(p =>
        withTimeout(p, publishTimeoutMs),
      ),
    )
    if (results.some(r => r.status === 'fulfilled')) return
    if (tries + 1 >= maxAttempts) {
      log.warn({ eventId: event.id, kind: event.kind }, 'gave up publishing an event: no relay accepted it')
      return
    }
    const delay = Math.min(firstRetryMs * 2 ** tries, maxRetryMs)
    log.info({ eventId: event.id, retryInMs: delay }, 'no relay accepted an event; retrying')
    await new Promise<void>(resolve => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, delay)
      timers.add(timer)
    })
    return attempt(event, targets, tries + 1)
  }

  return {
    publish(template, secretKey, eventRelays) {
      const event = finalizeEvent({ created_at: nowSeconds(), ...template }, secretKey)
      const targets = (eventRelays ?? relays).filter(url => {
        const reason = refusalOf(url)
        // The URL itself is not logged: a refused one may carry credentials.
        if (reason !== undefined) log.warn({ eventId: event.id, reason }, 'not publishing to a relay the guard refuses')
        return reason === undefined
      })
      if (targets.length === 0) return event.id
      for (const url of targets) (callerPool && !relays.includes(url) ? callerOpened : opened).add(url)
      const job = attempt(event, targets, 0).catch(err => log.error({ err, eventId: event.id }, 'publishing failed'))
      pending.add(job)
      job.finally(() => pending.delete(job))
      return event.id
    },
    refusalOf,
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
    async stop() {
      stopped = true
      for (const timer of timers) clearTimeout(timer)
      pool.close([...opened])
      callerPool?.close([...callerOpened])
    },
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms)
    promise.then(
      value => {
        clearTimeout(timer)
        resolve(value)
      },
      err => {
        clearTimeout(timer)
        reject(err)
      },
    )
  })
}
