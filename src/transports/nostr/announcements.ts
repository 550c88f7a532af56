// Announcements: events the daemon publishes unasked (extension events such as a restaurant's NIP-15 products and
// their deletions, NIP-57 zap receipts), sent through the transport's one relay pool. Unlike a reply, an
// announcement is worth as much late as now, so it is not dropped by the request age: each is tried up to 8 times,
// 1 s doubling to 60 s apart, 5 s per try, and given up with a warning after the last. Publishing never blocks or
// fails the caller, and a relay outage is only logged.
//
// The rooms that announce start before the transport (their handlers must be registered before it serves), so the
// announcer is made first, by the composition root, and hands them its `publish` at once: what they publish waits
// here until the transport attaches its pool and signer, then goes out. Events are signed on the transport's
// signature thread, like its replies; the id is computed here, at the call, so the caller has it at once.
import type { Event, EventTemplate } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { relayRefusal, type GuardOptions } from '../../callbacks/index.js'
import { eventId, unsignedEvent } from '../../nostr-crypto/index.js'
import { unixSeconds } from '../../units/index.js'
import type { Clock } from '../../bus/index.js'
import { doublingDelayMs } from '../../limits/index.js'

const maxAttempts = 8
const firstRetryMs = 1000
const maxRetryMs = 60_000
const publishTimeoutMs = 5000

/** An event to announce; dated now unless `created_at` is given. */
export interface AnnouncementTemplate {
  kind: number
  content: string
  tags: string[][]
  created_at?: number
}

/** What the domain rooms are handed (the extension host's NostrPublisher, the LNURL room's ZapPublisher). */
export interface Announcer {
  /**
   * Signs and queues an event; returns its id. `relays` replaces the service relays for this one event (a zap
   * receipt goes to the zap request's relays): those that are not service relays are reached only where the SSRF
   * guard allows, and the refused ones are dropped with a warning.
   */
  publish(template: AnnouncementTemplate, secretKey: Uint8Array, relays?: readonly string[]): string
  /** Why a relay would not be published to (the guard's reason), or undefined: a service relay always passes. */
  refusalOf(url: string): string | undefined
  /** Resolves when every event published so far was sent or given up on (tests and a clean stop). */
  idle(): Promise<void>
  /** Gives up what still waits (nothing is published after); what is being sent ends with the transport's stop. */
  stop(): Promise<void>
}

/** What the transport lends the announcer while it runs. */
export interface AnnouncingParts {
  /** Signs on the signature thread; `then` gets the signed event. */
  sign(template: EventTemplate, secretKey: Uint8Array, then: (event: Event) => void): void
  /** One try to the relays named (the service relays when undefined); true when one accepted it. */
  offer(event: Event, relays: readonly string[] | undefined, timeoutMs: number): Promise<boolean>
  /** The relays the transport serves on now. */
  serviceRelays(): readonly string[]
}

export interface TransportAnnouncer extends Announcer {
  /** How the pool reaches relays a caller named. */
  readonly guard: GuardOptions
  /** The transport's pool sends from now on, starting with what waited; the result detaches it (the transport's stop). */
  attach(parts: AnnouncingParts): () => void
}

export interface AnnouncerOptions {
  /** The service relays, until the transport runs (then the ones it serves on). */
  relays: readonly string[]
  guard: GuardOptions
  clock: Clock
  log: Logger
}

interface Job {
  template: EventTemplate
  secretKey: Uint8Array
  id: string
  /** Undefined: the service relays at each try (they may change on a SIGHUP). */
  targets: readonly string[] | undefined
  finish(): void
}

export function createAnnouncer(opts: AnnouncerOptions): TransportAnnouncer {
  const { log, guard } = opts
  let parts: AnnouncingParts | undefined
  let stopped = false
  const waiting: Job[] = []
  /** Jobs between two tries, with their timer. */
  const retrying = new Map<Job, NodeJS.Timeout>()
  const pending = new Set<Promise<void>>()

  const serviceRelays = () => parts?.serviceRelays() ?? opts.relays
  const refusalOf = (url: string) => relayRefusal(serviceRelays(), guard)(url)

  const giveUpAll = (why: string) => {
    const jobs = [...waiting.splice(0), ...retrying.keys()]
    for (const [, timer] of retrying) clearTimeout(timer)
    retrying.clear()
    if (jobs.length > 0) log.warn({ events: jobs.length, eventIds: jobs.map(job => job.id) }, `gave up publishing events: ${why}`)
    for (const job of jobs) job.finish()
  }

  const attempt = async (job: Job, event: Event, tries: number): Promise<void> => {
    const current = parts
    if (!current || stopped) {
      log.warn({ eventId: job.id, kind: event.kind }, 'gave up publishing an event: the relay transport stopped')
      return job.finish()
    }
    if (await current.offer(event, job.targets, publishTimeoutMs)) return job.finish()
    // The last try, or the transport stopped during this one: no further try will come.
    if (tries + 1 >= maxAttempts || parts !== current || stopped) {
      log.warn({ eventId: event.id, kind: event.kind }, 'gave up publishing an event: no relay accepted it')
      return job.finish()
    }
    const delay = doublingDelayMs(tries, firstRetryMs, maxRetryMs)
    log.info({ eventId: event.id, retryInMs: delay }, 'no relay accepted an event; retrying')
    retrying.set(
      job,
      setTimeout(() => {
        retrying.delete(job)
        void attempt(job, event, tries + 1).catch(err => failed(job, err))
      }, delay),
    )
  }

  const failed = (job: Job, err: unknown) => {
    log.error({ err, eventId: job.id }, 'publishing failed')
    job.finish()
  }

  const run = (job: Job, using: AnnouncingParts) => {
    using.sign(job.template, job.secretKey, event => void attempt(job, event, 0).catch(err => failed(job, err)))
  }

  return {
    guard,
    publish(template, secretKey, relays) {
      const dated: EventTemplate = {
        kind: template.kind,
        content: template.content,
        tags: template.tags,
        created_at: template.created_at ?? unixSeconds(opts.clock.now()),
      }
      const id = eventId(unsignedEvent(dated, secretKey))
      if (stopped) {
        log.warn({ eventId: id, kind: dated.kind }, 'gave up publishing an event: the relay transport stopped')
        return id
      }
      let targets: readonly string[] | undefined
      if (relays) {
        targets = relays.filter(url => {
          const reason = refusalOf(url)
          // The URL itself is not logged: a refused one may carry credentials.
          if (reason !== undefined) log.warn({ eventId: id, reason }, 'not publishing to a relay the guard refuses')
          return reason === undefined
        })
        if (targets.length === 0) return id
      }
      let finish!: () => void
      const done = new Promise<void>(resolve => (finish = resolve))
      pending.add(done)
      void done.then(() => pending.delete(done))
      const job: Job = { template: dated, secretKey, id, targets, finish }
      if (parts) run(job, parts)
      else waiting.push(job)
      return id
    },
    refusalOf,
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending])
    },
    async stop() {
      stopped = true
      giveUpAll('the daemon is stopping')
    },
    attach(lent) {
      if (stopped) return () => {}
      parts = lent
      for (const job of waiting.splice(0)) run(job, lent)
      return () => {
        if (parts !== lent) return
        parts = undefined
        giveUpAll('the relay transport stopped')
      }
    },
  }
}
