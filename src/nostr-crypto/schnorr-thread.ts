// Signatures made and checked on a worker thread. A relay round trip costs the daemon one signature check (the
// request, as the embedded relay takes it in) and one signature (the reply), on the one thread that also runs every
// operation; here they move to the second core while that thread goes on. Batching, ordering and the fall-back to
// this thread are the threads room's batch worker.
//
// Jobs travel as strings: a Buffer made from hex is a view of node's shared 8 KiB pool, and the structured clone of
// a view copies its whole ArrayBuffer, so two small Buffers per job cost 16 KiB of copying each way.
import type { Logger } from 'pino'
import { startBatchWorker } from '../threads/index.js'
import { checkSignature, signId } from './events.js'
import type { EngineName } from './engine.js'
import type { SchnorrJob, SchnorrResult, SchnorrWorkerData } from './schnorr-worker.js'

export interface SchnorrThread {
  /** Signs an event id (hex) with the key; `done` gets the hex signature. */
  sign(id: string, secretKey: Uint8Array, done: (sig: string) => void): void
  /** Checks a signature (hex) of an event id (hex) by an x-only pubkey (hex, valid hex assumed). */
  verify(id: string, pubkey: string, sig: string, done: (valid: boolean) => void): void
  /** Finishes what the worker holds and stops it; later jobs run on this thread. */
  stop(): Promise<void>
}

/** Bounds one message to the worker (and how long the worker is busy with it). */
const maxBatch = 64

/** Signing keys by hex, so a job names its key without hex-encoding it each time. */
const keyHex = new WeakMap<Uint8Array, string>()
const hexOf = (secretKey: Uint8Array) => {
  let hex = keyHex.get(secretKey)
  if (hex === undefined) keyHex.set(secretKey, (hex = Buffer.from(secretKey).toString('hex')))
  return hex
}

/** The worker runs the same engine as this thread (`engine`), or the next one down that loads there. */
export function startSchnorrThread(opts: { engine: EngineName; log: Logger }): SchnorrThread {
  const runHere = (job: SchnorrJob): SchnorrResult =>
    job.length === 128 ? signId(job.slice(0, 64), Buffer.from(job.slice(64), 'hex')) : checkSignature(job.slice(0, 64), job.slice(64, 128), job.slice(128))
  const workerData: SchnorrWorkerData = { engine: opts.engine }
  const jobs = startBatchWorker<SchnorrJob, SchnorrResult>({
    module: new URL('./schnorr-worker.js', import.meta.url),
    workerData,
    runHere: batch => batch.map(runHere),
    maxBatch,
    name: 'the signature worker',
    log: opts.log,
  })
  return {
    sign(id, secretKey, done) {
      jobs.run(id + hexOf(secretKey), done as (result: SchnorrResult) => void)
    },
    verify(id, pubkey, sig, done) {
      jobs.run(id + pubkey + sig, done as (result: SchnorrResult) => void)
    },
    stop: () => jobs.close(),
  }
}
