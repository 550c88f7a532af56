// The batched helper thread behind the relay's store and the signature thread: results in the order given,
// one message per turn, and nothing lost or reordered when the worker dies holding a batch.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startBatchWorker } from '../../src/threads/batch-worker.js'

const test = suite('batch worker')
const module = new URL('./doubling-worker.js', import.meta.url)
const turn = () => new Promise(resolve => setTimeout(resolve, 20))

test('jobs of one turn go in one batch; results come back in the order given', async () => {
  const worker = startBatchWorker<number, number>({ module, runHere: jobs => jobs.map(n => -n), maxBatch: 3, name: 'test worker' })
  const results: [number, number][] = []
  for (const n of [1, 2, 3, 4, 5]) worker.run(n, r => results.push([n, r]))
  assert.equal(results, [], 'nothing is answered in the turn it was given')
  await worker.close()
  assert.equal(results, [[1, 2], [2, 4], [3, 6], [4, 8], [5, 10]], 'answered by the worker (doubled), in order')
})

test('a worker that dies holding a batch: that batch and every later job run here, in order', async () => {
  const here: number[][] = []
  const worker = startBatchWorker<number, number>({
    module,
    runHere: jobs => (here.push(jobs), jobs.map(n => -n)),
    maxBatch: 2,
    name: 'test worker',
  })
  const results: number[] = []
  for (const n of [1, 2, -1, 4, 5]) worker.run(n, r => results.push(r))
  while (results.length < 5) await turn()
  assert.equal(results, [2, 4, 1, -4, -5], 'the first batch from the worker, the rest here')
  assert.equal(here, [[-1, 4], [5]], 'the batch it died with, then the one it still held')
  worker.run(6, r => results.push(r))
  await turn()
  assert.equal(results.at(-1), -6, 'after the failure, jobs run here')
  await worker.close()
})

test('without a module every batch runs here, still a turn later', async () => {
  const worker = startBatchWorker<number, number>({ runHere: jobs => jobs.map(n => n + 100), maxBatch: 8, name: 'none' })
  const results: number[] = []
  worker.run(1, r => results.push(r))
  assert.equal(results, [])
  await turn()
  assert.equal(results, [101])
  await worker.close()
})

test.run()
