// The one place Nostr event signatures are checked, on the engine in use (active.ts).
//
// In the offline default the embedded relay and the daemon run in one process and would check every request
// twice (the relay on ingest, the transport before decrypting), and the relay would check every reply the daemon
// just signed. So a verifier remembers the (id, signature) pairs it accepted or that we signed: a remembered pair
// only needs its id recomputed from the event (a hash, microseconds) — the id commits to every field, so an event
// whose fields were changed gets another id and is checked in full.
import { hash } from 'node:crypto'
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { BoundedSet } from '../limits/index.js'
import { engineStatus } from './active.js'
import type { EngineName } from './engine.js'
import { checkId, eventId, verifyEvent } from './events.js'
import { startSchnorrThread, type SchnorrThread } from './schnorr-thread.js'

export type VerifyEvent = (event: Event) => boolean

export interface EventVerifier {
  verify: VerifyEvent
  /**
   * The same verdict, with the signature checked on the signature thread when there is one (the caller goes on
   * meanwhile); a remembered event is answered at once.
   */
  verifyLater(event: Event, done: (valid: boolean) => void): void
  /** The engine signatures are checked on. */
  engine: EngineName
  /** Marks an event we signed ourselves as verified, so relaying it costs no signature check. */
  remember(event: Event): void
  /** The signature thread, when one runs: the transport signs its events there too. */
  thread?: SchnorrThread
  /** Stops the signature thread once it has answered what it holds (later checks run on the calling thread). */
  stop(): Promise<void>
}

/** Signatures remembered; older ones are checked in full again. */
const memoCapacity = 16_384

/**
 * What the memo keeps of a pair: SHA-256 over the id and the signature, 44 characters of base64. The two joined
 * would be a 193-character string (about 250 bytes with its entry); a full memo held about 4 MB of each thread's
 * heap that way, and about 1.5 MB now. A digest of both still binds the signature: the same id with another
 * signature is another key, and is checked in full.
 */
const memoKey = (event: Event) => hash('sha256', `${event.id}:${event.sig}`, 'base64')

/**
 * Engines whose signatures cost more than handing them to another thread. On libsecp256k1 (native) a signature
 * is ~50 µs, and the hop to the signature thread and back cost the main thread about as much (postMessage, the
 * wake-ups, the batch bookkeeping) and the process more in all: without the thread, 64 GetUserInfo in flight
 * through an external relay cost the daemon 0.658/0.649 ms per round trip against 0.816/0.749 with it, at 744/755
 * round trips/s against 412/496 (two runs, load ~7). The embedded relay's thread uses the second core anyway.
 * On wasm (~250 µs) and pure JS (~2 ms) the thread pays.
 */
const threadedEngines: ReadonlySet<EngineName> = new Set(['wasm', 'js'])

/**
 * A verifier on the engine in use. With `log` and a slow engine (threadedEngines), signatures are checked
 * (verifyLater) and made on a worker thread of their own, which runs the same engine.
 */
export async function createEventVerifier(opts: { log?: Logger } = {}): Promise<EventVerifier> {
  const engine = engineStatus().engine.name
  const thread = opts.log && threadedEngines.has(engine) ? startSchnorrThread({ engine, log: opts.log }) : undefined
  const memo = new BoundedSet<string>(memoCapacity)
  /** The event's memo key, hashed once per check; none for an event without a string id and signature. */
  const keyOf = (event: Event) => (typeof event.id === 'string' && typeof event.sig === 'string' ? memoKey(event) : undefined)
  const remember = (event: Event) => void memo.add(memoKey(event))
  const sameId = (event: Event) => {
    try {
      return eventId(event) === event.id
    } catch {
      return false
    }
  }
  const verifyKeyed = (event: Event, key: string | undefined) => {
    if (key !== undefined && memo.has(key)) return sameId(event)
    const ok = verifyEvent(event)
    if (ok && key !== undefined) memo.add(key)
    return ok
  }
  const verify = (event: Event) => verifyKeyed(event, keyOf(event))
  return {
    engine,
    remember,
    verify,
    thread,
    stop: async () => thread?.stop(),
    verifyLater(event, done) {
      const key = keyOf(event)
      if (!thread || (key !== undefined && memo.has(key))) return done(verifyKeyed(event, key))
      if (!checkId(event)) return done(false)
      thread.verify(event.id, event.pubkey, event.sig, valid => {
        if (valid && key !== undefined) memo.add(key)
        done(valid)
      })
    },
  }
}
