// The thread behind schnorr-thread.ts: BIP-340 signatures and signature checks, a batch per message, answered
// in order with one result per item.
import { randomBytes } from 'node:crypto'
import { parentPort } from 'node:worker_threads'
import { signSchnorr, verifySchnorr } from 'tiny-secp256k1'

export type SchnorrJob =
  /** Sign the event id (32 bytes) with the secret key. */
  | { id: Uint8Array; key: Uint8Array }
  /** Check the signature (64 bytes) of the event id by the x-only public key (32 bytes). */
  | { id: Uint8Array; pubkey: Uint8Array; sig: Uint8Array }

/** A hex signature for a signing job; whether the signature holds for a check (false for a bad point, too). */
export type SchnorrResult = string | boolean

function run(job: SchnorrJob): SchnorrResult {
  if ('key' in job) return Buffer.from(signSchnorr(job.id, job.key, randomBytes(32))).toString('hex')
  try {
    return verifySchnorr(job.id, job.pubkey, job.sig)
  } catch {
    return false // a public key that is not a curve point
  }
}

parentPort?.on('message', (jobs: SchnorrJob[]) => parentPort!.postMessage(jobs.map(run)))
