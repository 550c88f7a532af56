// What a relay round trip cannot cost less than on this machine: the daemon checks the request's signature and
// signs its reply (with the same signer and verifier it uses), and the bench client signs each request. Measured
// as CPU time per operation in this process, so the budget can say how many round trips two cores could carry
// even if everything else were free.
import { generateSecretKey } from 'nostr-tools/pure'
import { createEventSigner } from '../src/transports/nostr/sign.js'
import { createEventVerifier } from '../src/transports/nostr/verify.js'

export interface CryptoFloor {
  engine: string
  signUs: number
  verifyUs: number
  /** The daemon's least CPU per round trip (one verify, one sign) and what one core could then carry. */
  daemonMinUsPerRoundTrip: number
  daemonOneCoreMaxRoundTripsPerSecond: number
}

const cpuUs = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

export async function measureCryptoFloor(count = 500): Promise<CryptoFloor> {
  const { sign, engine } = await createEventSigner()
  const key = generateSecretKey()
  const template = () => ({ kind: 21000, created_at: Math.floor(Date.now() / 1000), tags: [['p', 'a'.repeat(64)]], content: 'x'.repeat(600) })
  for (let i = 0; i < 50; i++) sign(template(), key)
  let started = cpuUs()
  const events = Array.from({ length: count }, () => sign(template(), key))
  const signUs = (cpuUs() - started) / count
  // A fresh verifier per measurement: it remembers what it accepted, and must check each event in full here.
  const verifier = await createEventVerifier()
  started = cpuUs()
  for (const event of events) if (!verifier.verify({ ...event })) throw new Error('a signature did not verify')
  const verifyUs = (cpuUs() - started) / count
  const daemonMinUsPerRoundTrip = Math.round(signUs + verifyUs)
  return {
    engine,
    signUs: Math.round(signUs),
    verifyUs: Math.round(verifyUs),
    daemonMinUsPerRoundTrip,
    daemonOneCoreMaxRoundTripsPerSecond: Math.round(1_000_000 / daemonMinUsPerRoundTrip),
  }
}
