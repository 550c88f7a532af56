// The one place Nostr event signatures are checked. The wasm build of libsecp256k1 checks a Schnorr signature
// about three times faster than the pure-JS one, which decides how many relay events a 2-core machine can take in.
//
// In the offline default the embedded relay and the daemon run in one process and would check every request
// twice (the relay on ingest, the transport before decrypting), and the relay would check every reply the daemon
// just signed. So a verifier remembers the (id, signature) pairs it accepted or that we signed: a remembered pair
// only needs its id recomputed from the event (a hash, microseconds) — the id commits to every field, so an event
// whose fields were changed gets another id and is checked in full.
import { setNostrWasm, verifyEvent as wasmVerify } from 'nostr-tools/wasm'
import { getEventHash, verifyEvent as pureVerify, type Event } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'

export type VerifyEvent = (event: Event) => boolean

export interface EventVerifier {
  verify: VerifyEvent
  engine: 'wasm' | 'js'
  /** Marks an event we signed ourselves as verified, so relaying it costs no signature check. */
  remember(event: Event): void
}

/** Events with longer content may exceed the wasm module's memory (seen at about a megabyte). */
const wasmSafeContentLength = 256 * 1024
/** Signatures remembered; older ones are checked in full again. */
const memoCapacity = 16_384

/** A verifier on wasm when it loads, else the pure-JS one (same results, slower). */
export async function createEventVerifier(): Promise<EventVerifier> {
  let check: VerifyEvent
  let engine: 'wasm' | 'js'
  try {
    setNostrWasm(await initNostrWasm())
    // The wasm module hashes inside a fixed memory: an event of about a megabyte comes back false (or throws)
    // whatever its signature. Only such large events get a second, pure-JS check, so forged small events cost
    // one wasm check as before.
    check = event => {
      try {
        if (wasmVerify(event)) return true
      } catch {
        // checked below
      }
      return typeof event.content === 'string' && event.content.length > wasmSafeContentLength && pureVerify(event)
    }
    engine = 'wasm'
  } catch {
    check = event => pureVerify(event)
    engine = 'js'
  }
  const memo = new Set<string>()
  const remember = (event: Event) => {
    if (memo.size >= memoCapacity) memo.delete(memo.values().next().value!)
    memo.add(event.id + event.sig)
  }
  return {
    engine,
    remember,
    verify(event) {
      if (typeof event.id === 'string' && typeof event.sig === 'string' && memo.has(event.id + event.sig)) {
        try {
          return getEventHash(event) === event.id
        } catch {
          return false
        }
      }
      const ok = check(event)
      if (ok) remember(event)
      return ok
    },
  }
}
