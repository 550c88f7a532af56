// Signatures made and checked on a worker thread. A relay round trip costs the daemon one signature check (the
// request, as the embedded relay takes it in) and one signature (the reply), each ~0.3 ms of wasm on a small
// machine, on the one thread that also runs every operation; here they move to the second core while that thread
// goes on. Batching, ordering and the fall-back to this thread are src/threads/batch-worker.ts.
import type { Logger } from 'pino'
import { startBatchWorker } from '../../threads/batch-worker.js'
import type { SchnorrEngine } from './schnorr.js'
import type { SchnorrJob, SchnorrResult } from './schnorr-worker.js'

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

export function startSchnorrThread(opts: { engine: SchnorrEngine; log: Logger }): SchnorrThread {
  const { engine } = opts
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
  const runHere = (job: SchnorrJob): SchnorrResult =>
    'key' in job ? engine.signId(hex(job.id), job.key) : engine.checkSignature(hex(job.id), hex(job.pubkey), hex(job.sig))
  const jobs = startBatchWorker<SchnorrJob, SchnorrResult>({
    module: new URL('./schnorr-worker.js', import.meta.url),
    runHere: batch => batch.map(runHere),
    maxBatch,
    name: 'the signature worker',
    log: opts.log,
  })
  return {
    sign(id, secretKey, done) {
      jobs.run({ id: Buffer.from(id, 'hex'), key: secretKey }, done as (result: SchnorrResult) => void)
    },
    verify(id, pubkey, sig, done) {
      const job = { id: Buffer.from(id, 'hex'), pubkey: Buffer.from(pubkey, 'hex'), sig: Buffer.from(sig, 'hex') }
      jobs.run(job, done as (result: SchnorrResult) => void)
    },
    stop: () => jobs.close(),
  }
}
