// The thread behind schnorr-thread.ts: BIP-340 signatures and signature checks, a batch per message, answered in
// order with one result per item, on the engine the starting thread chose (or the next one down that loads here).
import { parentPort, workerData } from 'node:worker_threads'
import { useEngine } from './active.js'
import { checkSignature, signId } from './events.js'
import type { EngineName } from './engine.js'

/**
 * Hex strings: event id ‖ secret key (128 characters) to sign; event id ‖ x-only pubkey ‖ signature (256) to check.
 */
export type SchnorrJob = string

/** A hex signature for a signing job; whether the signature holds for a check (false for a bad point, too). */
export type SchnorrResult = string | boolean

export interface SchnorrWorkerData {
  engine: EngineName
}

function run(job: SchnorrJob): SchnorrResult {
  if (job.length === 128) return signId(job.slice(0, 64), Buffer.from(job.slice(64), 'hex'))
  return checkSignature(job.slice(0, 64), job.slice(64, 128), job.slice(128))
}

await useEngine((workerData as SchnorrWorkerData).engine)
parentPort?.on('message', (jobs: SchnorrJob[]) => parentPort!.postMessage(jobs.map(run)))
