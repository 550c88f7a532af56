// The Nostr crypto room, beneath both the relay and the Nostr transport: BIP-340 signatures and their checks, event
// ids, conversation keys (ECDH), on the fastest secp256k1 engine that loads here (engine.ts), with a signature
// thread for the daemon.
import { engineStatus, useEngine } from './active.js'
import type { EngineName, LoadedEngine } from './engine.js'
import { signEvent, type SignEvent } from './events.js'

export { engineNames, jsEngine, loadEngine, type CurveEngine, type EngineName, type LoadedEngine } from './engine.js'
export { activeEngine, conversationKeyNip04, conversationKeyV1, conversationKeyV2, engineStatus, useEngine } from './active.js'
export { checkId, checkSignature, eventId, publicKeyOf, signEvent, signId, unsignedEvent, verifyEvent, type SignEvent, type UnsignedEvent } from './events.js'
export { createEventVerifier, type EventVerifier, type VerifyEvent } from './verify.js'
export { type SchnorrThread } from './schnorr-thread.js'
export { pooledRandomBytes } from './random-pool.js'

/** A signer on the engine in use; the template is never modified. */
export async function createEventSigner(): Promise<{ sign: SignEvent; engine: EngineName }> {
  return { sign: signEvent, engine: engineStatus().engine.name }
}

/**
 * One line for the log: which engine runs and, when a faster one could not load, which and why. `warn` when the
 * engine is not the one wanted (a relay round trip then costs several times the CPU).
 */
export function engineLogLine(wanted: EngineName, loaded: LoadedEngine = engineStatus()): { level: 'info' | 'warn'; fields: Record<string, unknown>; message: string } {
  const name = loaded.engine.name
  const fields = { engine: name, wanted, ...(loaded.skipped.length > 0 ? { unavailable: loaded.skipped } : {}) }
  const label = { native: 'native libsecp256k1', wasm: 'libsecp256k1 in wasm', js: 'pure JavaScript' }[name]
  if (name === wanted) return { level: 'info', fields, message: `Nostr signatures and conversation keys on ${label}` }
  const why = loaded.skipped.map(s => `${s.engine}: ${s.reason}`).join('; ')
  return { level: 'warn', fields, message: `Nostr signatures and conversation keys fall back to ${label} (${why}); relay round trips cost several times the CPU` }
}

/** Chooses the engine (`[nostr] crypto`) for this thread and logs the one line above. */
export async function chooseEngine(wanted: EngineName, log: { info(o: object, m: string): void; warn(o: object, m: string): void }): Promise<LoadedEngine> {
  const loaded = await useEngine(wanted)
  const line = engineLogLine(wanted, loaded)
  log[line.level](line.fields, line.message)
  return loaded
}
