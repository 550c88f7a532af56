// The shared middle of the one inbound pipeline (issue 23): every request event, whatever its kind, passes here
// after its cheap checks (size, shape, age, addressee) and before its codec. The order is the cost order: the
// in-flight set first (the same event from a second relay while the first copy runs needs nothing), then the
// signature (once, before anything is decrypted: nip44v1 has no MAC, so the signature is its only integrity), then
// the exactly-once claim in the one claim store (processed-requests.ts). Requests verified in one turn of the event
// loop are claimed together in one transaction at the next. The codec runs with the claim: a new request, one
// answered before (its stored reply is sent again), or one an earlier run took and never answered.
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { type Clock } from '../../bus/index.js'
import type { Claim, ProcessedRequests } from './processed-requests.js'
import type { VerifyEvent } from './verify.js'

export interface ClaimStageDeps {
  processed: ProcessedRequests
  verify: VerifyEvent
  clock: Clock
  log: Logger
}

export interface ClaimStage {
  /** Verifies and claims a request addressed to `addressee` (the key that answers it), then runs it with its claim. */
  take(event: Event, addressee: string, run: (claim: Claim) => Promise<void>): void
  /** Resolves once every request taken so far is claimed and its run has begun (not necessarily answered). */
  begun(): Promise<void>
  /** Resolves when every request taken so far has been answered. */
  idle(): Promise<void>
}

export function claimStage(deps: ClaimStageDeps): ClaimStage {
  const { processed, log } = deps
  const inFlight = new Map<string, Promise<void>>()
  let queued: { event: Event; addressee: string; run(claim: Claim): Promise<void>; done(): void }[] = []
  let lastBatch: Promise<unknown> = Promise.resolve()

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
        // Not known to be claimed, so not run: a redelivery may try again (or finds the claim and says so).
        log.error({ err, requests: batch.length }, 'could not record request events; dropped them')
        for (const { event, done } of batch) {
          inFlight.delete(event.id)
          done()
        }
      },
    )
  }

  return {
    take(event, addressee, run) {
      if (inFlight.has(event.id)) return
      if (!deps.verify(event)) {
        log.warn({ id: event.id, pubkey: event.pubkey, kind: event.kind }, 'dropped a request event with a bad id or signature')
        return
      }
      let done!: () => void
      inFlight.set(event.id, new Promise<void>(resolve => (done = resolve)))
      queued.push({ event, addressee, run, done })
      if (queued.length === 1) setImmediate(takeQueued)
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
