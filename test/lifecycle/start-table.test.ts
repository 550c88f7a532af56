// The composition root's table of steps: started forward, each with what the steps before it provided; stopped in
// reverse, each once; a start failing half-way stops only what had started, the last first, and throws its error;
// a stop that throws is logged with its step while the others still stop.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { startTable, type StartTable } from '../../src/lifecycle/start-table.js'

const test = suite('the table of start steps')

function capturingLog() {
  const lines: Record<string, unknown>[] = []
  const log = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  return { log, lines }
}

/** A step that records its start and stop in `seen`. */
function recorded(seen: string[], name: string) {
  return () => {
    seen.push(`start ${name}`)
    return { stop: () => void seen.push(`stop ${name}`) }
  }
}

test('steps start in order, each given what the earlier ones provided, and stop in reverse', async () => {
  const { log, lines } = capturingLog()
  const seen: string[] = []
  const table = startTable<{ dataDir: string }>()
    .step('books', async ({ dataDir }) => {
      seen.push(`start books in ${dataDir}`)
      return { stop: async () => void seen.push('stop books'), books: { file: `${dataDir}/books` } }
    })
    .step('secrets', () => (seen.push('start secrets'), { token: 'abc' })) // nothing to stop
    .step('node', ({ books, token }) => {
      seen.push(`start node on ${books.file} with ${token}`)
      return { stop: () => void seen.push('stop node'), node: 'node-1' }
    })
  const running = await table.start({ dataDir: '/data' }, log)
  assert.equal(running.context, { dataDir: '/data', books: { file: '/data/books' }, token: 'abc', node: 'node-1' })
  assert.not.ok('stop' in running.context)
  await running.stopAll()
  assert.equal(seen, ['start books in /data', 'start secrets', 'start node on /data/books with abc', 'stop node', 'stop books'])
  assert.equal(lines, [])
})

test('steps kept in a table of their own start at the place they are spliced in', async () => {
  const { log } = capturingLog()
  const seen: string[] = []
  const rooms = <B extends object, C extends { ground: string }>(table: StartTable<B, C>) =>
    table.step('wallet', recorded(seen, 'wallet')).step('swaps', recorded(seen, 'swaps'))
  const running = await startTable<object>()
    .step('ground', () => ({ ...recorded(seen, 'ground')(), ground: 'ready' }))
    .steps(rooms)
    .step('transport', recorded(seen, 'transport'))
    .start({}, log)
  await running.stopAll()
  assert.equal(seen, [
    'start ground', 'start wallet', 'start swaps', 'start transport',
    'stop transport', 'stop swaps', 'stop wallet', 'stop ground',
  ])
})

test('a start failing half-way stops only what started, the last first, and throws its error', async () => {
  const { log } = capturingLog()
  const seen: string[] = []
  const failure = new Error('node refused')
  const table = startTable<object>()
    .step('lock', recorded(seen, 'lock'))
    .step('books', recorded(seen, 'books'))
    .step('node', async () => {
      seen.push('start node')
      throw failure
    })
    .step('wallet', recorded(seen, 'wallet'))
  let thrown: unknown
  await table.start({}, log).catch(err => (thrown = err))
  assert.is(thrown, failure)
  assert.equal(seen, ['start lock', 'start books', 'start node', 'stop books', 'stop lock'])
})

test('a stop that throws is logged with its step, and the steps started before it still stop', async () => {
  const { log, lines } = capturingLog()
  const seen: string[] = []
  const running = await startTable<object>()
    .step('books', recorded(seen, 'books'))
    .step('node', () => ({ stop: () => { throw new Error('node close failed') } }))
    .step('wallet', () => ({ stop: async () => Promise.reject(new Error('wallet stop failed')) }))
    .step('transport', recorded(seen, 'transport'))
    .start({}, log)
  await running.stopAll()
  assert.equal(seen, ['start books', 'start transport', 'stop transport', 'stop books'])
  assert.equal(lines.map(line => line.room), ['wallet', 'node'])
  assert.ok(lines.every(line => line.msg === 'a room failed to stop; stopping the others'))
})

test('stopAll stops each step once, however often and however concurrently it is called', async () => {
  const { log } = capturingLog()
  const seen: string[] = []
  const running = await startTable<object>()
    .step('books', recorded(seen, 'books'))
    .step('node', recorded(seen, 'node'))
    .start({}, log)
  await Promise.all([running.stopAll(), running.stopAll()])
  await running.stopAll()
  assert.equal(seen, ['start books', 'start node', 'stop node', 'stop books'])
})

test('a table can be started again: each start has its own steps to stop', async () => {
  const { log } = capturingLog()
  const seen: string[] = []
  const table = startTable<{ n: number }>().step('room', ({ n }) => ({ ...recorded(seen, `room ${n}`)() }))
  const first = await table.start({ n: 1 }, log)
  const second = await table.start({ n: 2 }, log)
  await second.stopAll()
  await first.stopAll()
  assert.equal(seen, ['start room 1', 'start room 2', 'stop room 2', 'stop room 1'])
})

test.run()
