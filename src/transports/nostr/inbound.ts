// The one inbound pipeline: every request event, whatever its kind, passes here after its cheap checks
// (size, shape, age) and runs through its kind's codec (codec.ts). The order is the cost order: the codec names the
// addressee (an unknown key costs nothing more), then the in-flight set (the same event from a second relay while
// the first copy runs needs nothing), the signature (once, before anything is decrypted: nip44v1 has no MAC, so the
// signature is its only integrity), then the exactly-once claim in the one claim store (processed-requests.ts).
// Requests verified in one turn of the event loop are claimed together in one transaction at the next. With its
// claim a request is new (dispatched, answered), answered before (its stored reply is sent again, nothing runs) or
// taken by an earlier run that never answered (told so by its codec, never run twice); an answer is stored before
// it is sent, for the next repeat.
// A request is decoded once its signature holds, before its claim: a call of an operation the catalogue marks
// `repeatable` (it only reads, so running it again changes nothing) is run and answered at once, with nothing
// journalled (the claim and the stored reply were a sixth of the daemon's work per GetUserInfo). A
// repeat of one is run again and answers the state of that moment.
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { type Clock, type Dispatcher } from '../../bus/index.js'
import { isStoreFault } from '../../store/index.js'
import { noReply, type Addressee, type AnyNostrCodec, type Decoded, type Inbound, type NostrCodec, type StoredReply } from '../../nostr-codecs/index.js'
import type { Claim, ProcessedRequests } from './processed-requests.js'
import type { VerifyEvent } from './verify.js'
import { doublingDelayMs } from '../../limits/index.js'

export interface ClaimStageDeps {
  processed: ProcessedRequests
  verify: VerifyEvent
  clock: Clock
  log: Logger
}

/**
 * How a verified request is handled: its work once it is claimed, or (a repeatable read) its work run at once,
 * without a claim.
 */
export type Handling = { claimed: (claim: Claim) => Promise<void> } | { unclaimed: () => Promise<void> }

export interface ClaimStage {
  /**
   * Verifies a request addressed to `addressee` (the key that answers it), asks `handle` how it is handled, and
   * claims it and runs it with its claim, or runs it unclaimed. Either way it is in flight, for `idle` and for copies
   * of the same event, until its work is done.
   */
  take(event: Event, addressee: string, handle: () => Handling): void
  /** Resolves once every request taken so far is claimed and its run has begun (not necessarily answered). */
  begun(): Promise<void>
  /** Resolves when every request taken so far has been answered. */
  idle(): Promise<void>
}

/** How long a request whose claim met a database fault is claimed again before it is dropped. */
const claimRetryMs = 30_000

interface Queued {
  event: Event
  addressee: string
  run(claim: Claim): Promise<void>
  done(): void
  /** Claims tried so far after a database fault, and until when (clock ms) the next may be. */
  tries?: number
  retryUntil?: number
}

export function claimStage(deps: ClaimStageDeps): ClaimStage {
  const { processed, log } = deps
  const inFlight = new Map<string, Promise<void>>()
  let queued: Queued[] = []
  let lastBatch: Promise<unknown> = Promise.resolve()

  const enqueue = (item: Queued) => {
    queued.push(item)
    if (queued.length === 1) setImmediate(takeQueued)
  }

  function takeQueued(): void {
    const batch = queued
    queued = []
    const receivedAt = deps.clock.now()
    let claiming: Promise<Claim[]>
    try {
      claiming = processed.claim(
        batch.map(({ event, addressee }) => ({
          eventId: event.id,
          requester: event.pubkey,
          appPubkey: addressee,
          createdAt: event.created_at,
          receivedAt,
        })),
      )
    } catch (err) {
      claiming = Promise.reject(err)
    }
    lastBatch = claiming.then(
      claims =>
        batch.forEach(({ event, run, done }, i) => {
          run(claims[i]!)
            .catch(err => log.error({ err, id: event.id, kind: event.kind }, 'request event handling failed'))
            .finally(() => {
              inFlight.delete(event.id)
              done()
            })
        }),
      err => {
        // Not known to be claimed, so not run. A relay delivers an event once: the client's own retry of the same
        // signed event is a duplicate to it, not sent on. So a database fault (a lost session, a restarting server)
        // is ridden out here: the batch is claimed again, 100 ms doubling to 5 s, for up to claimRetryMs; a claim
        // whose COMMIT was lost is then found taken and answered "outcome unknown", never run twice.
        const code = (err as { code?: unknown } | null)?.code
        const again = isStoreFault(err) && code !== 'not_active' ? batch.filter(item => item.retryUntil === undefined || deps.clock.now() < item.retryUntil) : []
        log.error({ err, requests: batch.length, retried: again.length }, again.length > 0 ? 'could not record request events; trying again' : 'could not record request events; dropped them')
        for (const item of batch) {
          if (again.includes(item)) continue
          inFlight.delete(item.event.id)
          item.done()
        }
        if (again.length === 0) return
        const tries = (again[0]!.tries ?? 0) + 1
        setTimeout(() => {
          for (const item of again) enqueue({ ...item, tries, retryUntil: item.retryUntil ?? deps.clock.now() + claimRetryMs })
        }, doublingDelayMs(tries - 1, 100, 5000))
      },
    )
  }

  return {
    take(event, addressee, handle) {
      if (inFlight.has(event.id)) return
      if (!deps.verify(event)) {
        log.warn({ id: event.id, pubkey: event.pubkey, kind: event.kind }, 'dropped a request event with a bad id or signature')
        return
      }
      let done!: () => void
      inFlight.set(event.id, new Promise<void>(resolve => (done = resolve)))
      const finish = () => {
        inFlight.delete(event.id)
        done()
      }
      const failed = (err: unknown) => log.error({ err, id: event.id, kind: event.kind }, 'request event handling failed')
      let handling: Handling
      try {
        handling = handle()
      } catch (err) {
        // A codec that throws while reading (it should answer `drop`): nothing is claimed, nothing runs.
        failed(err)
        return finish()
      }
      if ('claimed' in handling) return enqueue({ event, addressee, run: handling.claimed, done })
      handling.unclaimed().catch(failed).finally(finish)
    },
    // A batch is taken at the next turn of the event loop: wait for that turn, then for its claims.
    begun: async () => {
      await new Promise(resolve => setImmediate(resolve))
      await lastBatch
    },
    idle: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()])
    },
  }
}

export interface InboundDeps {
  /** One codec per kind served; a kind served twice is a fault at start. */
  codecs: readonly AnyNostrCodec[]
  stage: ClaimStage
  processed: ProcessedRequests
  dispatcher: Pick<Dispatcher, 'call' | 'resolve'>
  log: Logger
}

export interface InboundPipeline {
  /** A request event of sound shape and age whose `p` tag names `target`. */
  receive(event: Event, target: string): void
  /** The subscription's filters from `since`: the kinds of codecs addressed to the same keys share one filter. */
  filters(since: number): { kinds: number[]; '#p': string[]; since: number }[]
  /** Resolves when every request taken so far has been answered. */
  idle(): Promise<void>
}

export function inboundPipeline(deps: InboundDeps): InboundPipeline {
  const { processed, log } = deps
  const byKind = new Map<number, NostrCodec>()
  for (const codec of deps.codecs) {
    for (const kind of codec.kinds) {
      if (byKind.has(kind)) throw new Error(`two codecs serve Nostr kind ${kind}`)
      byKind.set(kind, codec)
    }
  }

  async function run(codec: NostrCodec, claim: Claim, request: Inbound, decoded: Decoded<unknown>): Promise<void> {
    const { event } = request
    if (claim.state === 'answered') {
      if (claim.reply.contents.length > 0) await processed.answer(event.id, codec.resend(request, claim.reply))
      return
    }
    if (decoded.type === 'drop') {
      log.debug({ id: event.id, kind: event.kind, reason: decoded.reason }, 'dropped a request without an answer')
      return processed.answer(event.id, noReply)
    }
    const reply = claim.state === 'interrupted' ? await codec.interrupted(decoded) : await answer(codec, decoded)
    // Stored before it is sent: a daemon killed in between sent nothing, and whoever takes the request next (a
    // restart, the standby) says "outcome unknown" as the only answer; once stored, every repeat gets this one.
    // Should storing fail the answer still goes out, as the one the caller most needs, and the fault is logged.
    try {
      await processed.answer(event.id, reply)
    } finally {
      if (reply.contents.length > 0) codec.publish(request, reply)
    }
  }

  /** A repeatable read: run and answered, nothing stored; remembered only so that a relay's replay is not answered twice. */
  async function runUnclaimed(codec: NostrCodec, request: Inbound, decoded: Extract<Decoded<unknown>, { type: 'call' }>): Promise<void> {
    const reply = await answer(codec, decoded)
    if (reply.contents.length === 0) return
    processed.answeredUnstored(request.event.id)
    codec.publish(request, reply)
  }

  const repeatable = (decoded: Decoded<unknown>): decoded is Extract<Decoded<unknown>, { type: 'call' }> =>
    decoded.type === 'call' && deps.dispatcher.resolve(decoded.call.op)?.repeatable === true

  async function answer(codec: NostrCodec, decoded: Exclude<Decoded<unknown>, { type: 'drop' }>): Promise<StoredReply> {
    if (decoded.type === 'refuse') return codec.refuse(decoded.request)
    if (decoded.type === 'stream') {
      if (!codec.openStream) throw new Error(`the codec of kinds ${codec.kinds.join(', ')} opens no streams`)
      return codec.openStream(decoded.request, decoded.call)
    }
    let output: unknown
    try {
      output = await deps.dispatcher.call({ ...decoded.call, transport: 'nostr' })
    } catch (err) {
      return codec.fail(decoded.request, err)
    }
    return codec.answer(decoded.request, output)
  }

  return {
    receive(event, target) {
      const codec = byKind.get(event.kind)
      const to: Addressee | undefined = codec?.addressee(event, target)
      if (!codec || !to) return
      const request: Inbound = { event, to, arrivedAt: performance.now() }
      // Decoded once the signature holds (nip44v1 has no MAC: the signature is its only integrity), before the claim.
      deps.stage.take(event, to.pubkey, () => {
        const decoded = codec.decode(request)
        return repeatable(decoded)
          ? { unclaimed: () => runUnclaimed(codec, request, decoded) }
          : { claimed: claim => run(codec, claim, request, decoded) }
      })
    },
    filters(since) {
      const filters: { kinds: number[]; '#p': string[]; since: number }[] = []
      for (const codec of deps.codecs) {
        const keys = codec.keys()
        // A relay reads an empty `#p` list as "no constraint": a codec with no key yet is not asked for.
        if (keys.length === 0) continue
        const same = filters.find(f => f['#p'].length === keys.length && f['#p'].every((key, i) => key === keys[i]))
        if (same) same.kinds.push(...codec.kinds)
        else filters.push({ kinds: [...codec.kinds], '#p': keys, since })
      }
      return filters
    },
    idle: () => deps.stage.idle(),
  }
}
