// What a relay round trip cannot cost less than on this machine: the daemon checks the request's signature and
// signs its reply (with the same signer and verifier it uses), and the bench client signs each request. Measured
// as CPU time per operation in this process, so the budget can say how many round trips two cores could carry
// even if everything else were free. `engines` has the same figures (and ECDH) for each secp256k1 engine.
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { createEventSigner, createEventVerifier, engineNames, loadEngine, type EngineName } from '../src/nostr-crypto/index.js'

export interface CryptoFloor {
  engine: string
  signUs: number
  verifyUs: number
  /** The daemon's least CPU per round trip (one verify, one sign) and what one core could then carry. */
  daemonMinUsPerRoundTrip: number
  daemonOneCoreMaxRoundTripsPerSecond: number
  /** Each engine's BIP-340 signature, check and ECDH (a conversation key), in µs of CPU. */
  engines: Record<EngineName, { signUs: number; verifyUs: number; ecdhUs: number }>
}

const cpuUs = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

function timed(count: number, run: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(50, count); i++) run(i)
  const started = cpuUs()
  for (let i = 0; i < count; i++) run(i)
  return Math.round(((cpuUs() - started) / count) * 10) / 10
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
  const engines = {} as CryptoFloor['engines']
  const messages = events.map(event => Buffer.from(event.id, 'hex'))
  const pubkey = Buffer.from(getPublicKey(key), 'hex')
  const peers = Array.from({ length: 20 }, () => Buffer.from(getPublicKey(generateSecretKey()), 'hex'))
  for (const name of engineNames) {
    const curve = (await loadEngine(name)).engine
    if (curve.name !== name) continue // not loadable here
    const n = name === 'js' ? Math.min(count, 100) : count
    const aux = Buffer.alloc(32, 7)
    const sigs = messages.slice(0, n).map(message => curve.sign(message, key, aux))
    engines[name] = {
      signUs: timed(n, i => curve.sign(messages[i]!, key, aux)),
      verifyUs: timed(n, i => curve.verify(messages[i]!, pubkey, sigs[i]!)),
      ecdhUs: timed(n, i => curve.sharedX(key, peers[i % peers.length]!)),
    }
  }
  return {
    engine,
    signUs: Math.round(signUs),
    verifyUs: Math.round(verifyUs),
    daemonMinUsPerRoundTrip,
    daemonOneCoreMaxRoundTripsPerSecond: Math.round(1_000_000 / daemonMinUsPerRoundTrip),
    engines,
  }
}
