// The composition root's stack of started rooms: stopped in reverse, each once, and a stop that throws is logged
// while the rooms below it still stop (a half-started daemon stops what it started, whatever failed).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { roomStack } from '../../src/lifecycle/room-stack.js'

const test = suite('the stack of started rooms')

function capturingLog() {
  const lines: Record<string, unknown>[] = []
  const log = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
  return { log, lines }
}

test('rooms stop in the reverse of their start, each once, however often the stop is asked for', async () => {
  const { log } = capturingLog()
  const rooms = roomStack(log)
  const stopped: string[] = []
  for (const name of ['books', 'node', 'wallet', 'transport']) rooms.started(name, async () => void stopped.push(name))
  await Promise.all([rooms.stopAll(), rooms.stopAll()])
  await rooms.stopAll()
  assert.equal(stopped, ['transport', 'wallet', 'node', 'books'])
})

test('a stop that throws is logged with its room, and the rooms started before it still stop', async () => {
  const { log, lines } = capturingLog()
  const rooms = roomStack(log)
  const stopped: string[] = []
  rooms.started('books', () => void stopped.push('books'))
  rooms.started('node', () => {
    throw new Error('node close failed')
  })
  rooms.started('wallet', async () => {
    await Promise.reject(new Error('wallet stop failed'))
  })
  await rooms.stopAll()
  assert.equal(stopped, ['books'])
  assert.equal(lines.map(line => line.room), ['wallet', 'node'])
  assert.ok(lines.every(line => line.msg === 'a room failed to stop; stopping the others'))
})

test.run()
