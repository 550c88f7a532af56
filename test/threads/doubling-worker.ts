// A worker for batch-worker.test.ts: answers each batch of numbers with their doubles, and exits when a batch
// holds -1 (a worker that dies holding a batch).
import { parentPort } from 'node:worker_threads'

parentPort!.on('message', (jobs: number[]) => {
  if (jobs.includes(-1)) process.exit(3)
  parentPort!.postMessage(jobs.map(n => n * 2))
})
