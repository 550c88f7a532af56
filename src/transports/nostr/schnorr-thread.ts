// Signatures made and checked on a worker thread. A relay round trip costs the daemon one signature check (the
// request, as the embedded relay takes it in) and one signature (the reply), each ~0.3 ms of wasm on a small
// machine, on the one thread that also runs every operation; here they move to the second core while that thread
// goes on. Jobs given in one turn of the event loop travel in one message; results come back in the order given.
// If the worker cannot start or dies, jobs are done on the calling thread instead: none is lost or reordered.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { SchnorrEngine } from './schnorr.js'
import type { SchnorrJob, SchnorrResult } from './schnorr-worker.js'
import { smallWorker } from '../../store/worker-limits.js'

export interface SchnorrThread {
  /** Signs an event id (hex) with the key; `done` gets the hex signature. */
  sign(id: string, secretKey: Uint8Array, done: (sig: string) => void): void
  /** Checks a signature (hex) of an event id (hex) by an x-only pubkey (hex, valid hex assumed). */
  verify(id: string, pubkey: string, sig: string, done: (valid: boolean) => void): void
  /** Finishes what is waiting on this thread and stops the worker; later jobs run on this thread. */
  stop(): void
}

interface Pending {
  job: SchnorrJob
  done(result: SchnorrResult): void
}

/** Bounds one message to the worker (and how long the worker is busy with it). */
const maxBatch = 64

export function startSchnorrThread(opts: { engine: SchnorrEngine; log: Logger }): SchnorrThread {
  const { engine, log } = opts
  let worker: Worker | undefined
  /** Batches sent to the worker, oldest first, then jobs not yet sent. */
  let inFlight: Pending[][] = []
  let queued: Pending[] = []
  let scheduled = false

  const runHere = ({ job, done }: Pending) => {
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
    if ('key' in job) done(engine.signId(hex(job.id), job.key))
    else done(engine.checkSignature(hex(job.id), hex(job.pubkey), hex(job.sig)))
  }
  /** Without the worker: everything still waiting runs here, oldest first. */
  const fallBack = (reason: string | undefined) => {
    if (!worker) return
    if (reason) log.error({ reason }, 'the signature worker stopped; signatures are made on the main thread')
    const gone = worker
    worker = undefined
    const waiting = [...inFlight.flat(), ...queued]
    inFlight = []
    queued = []
    for (const pending of waiting) runHere(pending)
    void gone.terminate()
  }

  try {
    worker = new Worker(new URL('./schnorr-worker.js', import.meta.url), { resourceLimits: smallWorker })
    worker.on('message', (results: SchnorrResult[]) => {
      const batch = inFlight.shift()
      batch?.forEach((pending, i) => pending.done(results[i]!))
      // Idle, the worker must not keep a stopping process alive.
      if (inFlight.length === 0) worker?.unref()
    })
    worker.on('error', err => fallBack(err.message))
    worker.on('exit', code => fallBack(`exit code ${code}`))
    worker.unref()
  } catch (err) {
    worker = undefined
    log.error({ err }, 'the signature worker did not start; signatures are made on the main thread')
  }

  const flush = () => {
    scheduled = false
    while (worker && queued.length > 0) {
      const batch = queued.splice(0, maxBatch)
      inFlight.push(batch)
      worker.ref()
      worker.postMessage(batch.map(pending => pending.job))
    }
  }
  const enqueue = (pending: Pending) => {
    if (!worker) return runHere(pending)
    queued.push(pending)
    if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }

  return {
    sign(id, secretKey, done) {
      enqueue({ job: { id: Buffer.from(id, 'hex'), key: secretKey }, done: done as (result: SchnorrResult) => void })
    },
    verify(id, pubkey, sig, done) {
      const job = { id: Buffer.from(id, 'hex'), pubkey: Buffer.from(pubkey, 'hex'), sig: Buffer.from(sig, 'hex') }
      enqueue({ job, done: done as (result: SchnorrResult) => void })
    },
    stop: () => fallBack(undefined),
  }
}
