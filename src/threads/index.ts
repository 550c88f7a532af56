// Helper threads: a worker that takes batches of small jobs off the main thread (signature checks, the relay's
// event writes), and the heap limits every long-lived helper thread runs under.
export { startBatchWorker, type BatchWorker } from './batch-worker.js'
export { smallWorker } from './worker-limits.js'
