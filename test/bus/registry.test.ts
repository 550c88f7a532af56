// Wiring mistakes fail at start, not at the first call.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { lastValueFrom, of, toArray } from 'rxjs'
import { pino } from 'pino'
import { catalogue } from '../../schema/catalogue.js'
import { createRegistry } from '../../src/bus/registry.js'
import { createDispatcher } from '../../src/bus/dispatcher.js'
import { OperationError } from '../../src/bus/errors.js'
import type { HandlerTable } from '../../src/bus/handler.js'

const registry = suite('operation registry')

registry('a handler for a name the catalogue does not know is refused', () => {
  const r = createRegistry(catalogue)
  assert.throws(() => r.register({ NoSuchOperation: async () => ({}) } as unknown as HandlerTable, 'test'), /NoSuchOperation, which is not in the catalogue/)
})

registry('a second registration of one operation is refused, naming both owners', () => {
  const r = createRegistry(catalogue)
  r.register({ Health: async () => ({}) }, 'first')
  assert.throws(() => r.register({ Health: async () => ({}) }, 'second'), /second registers Health, already registered by first/)
})

registry('registering after start is refused', () => {
  const r = createRegistry(catalogue)
  r.seal()
  assert.throws(() => r.register({ Health: async () => ({}) }, 'late'), /after start/)
})

registry('operations nobody registered answer "not implemented: <Operation>"; aliases resolve', async () => {
  const r = createRegistry(catalogue)
  r.register({ Health: async () => ({}) }, 'test')
  const missing = r.seal()
  assert.ok(missing.includes('NodeGetInfo'))
  assert.not.ok(missing.includes('Health'))
  assert.is(r.lookup('LndGetInfo')?.entry.name, 'NodeGetInfo')
  const dispatcher = createDispatcher({
    registry: r,
    authenticate: async () => ({ kind: 'admin', adminId: 'test' }),
    log: pino({ level: 'silent' }),
    clock: { now: () => 0 },
  })
  const outcomes: unknown[] = []
  dispatcher.outcomes$.subscribe(o => outcomes.push(o))
  try {
    await lastValueFrom(dispatcher.dispatch({ op: 'LndGetInfo', credentials: {}, input: { nodeId: 0 }, transport: 'internal', requestId: 'r1' }))
    assert.unreachable()
  } catch (err) {
    assert.ok(err instanceof OperationError)
    assert.is((err as OperationError).code, 'not_implemented')
    assert.is((err as OperationError).message, 'not implemented: NodeGetInfo') // the canonical name, whatever alias was called
  }
  assert.is(outcomes.length, 1)
  assert.equal((outcomes[0] as { ok: boolean; errorCode: string }).ok, false)
})

registry('sealed for the daemon, an operation without a handler is a wiring fault that names it', () => {
  const r = createRegistry(catalogue)
  r.register({ Health: async () => ({}) }, 'test')
  assert.throws(() => r.seal({ requireAll: true }), /operation\(s\) have no handler: .*NodeGetInfo/)
  // Still open: registering the rest then sealing works.
  const rest = Object.fromEntries(catalogue.filter(e => e.name !== 'Health').map(e => [e.name, async () => ({})]))
  r.register(rest as HandlerTable, 'the rest')
  assert.equal(r.seal({ requireAll: true }), [])
})

registry('a streaming handler emits several answers through one dispatch', async () => {
  const r = createRegistry(catalogue)
  r.register({ GetLiveUserOperations: () => of({ operation: {}, latest_balance: 1 }, { operation: {}, latest_balance: 2 }) } as unknown as HandlerTable, 'test')
  r.seal()
  const dispatcher = createDispatcher({
    registry: r,
    authenticate: async () => ({ kind: 'user', userId: 'u', appId: 'a', appUserId: 'au' }),
    log: pino({ level: 'silent' }),
    clock: { now: () => 0 },
  })
  const items = await lastValueFrom(
    dispatcher.dispatch({ op: 'GetLiveUserOperations', credentials: {}, input: {}, transport: 'internal', requestId: 'r2' }).pipe(toArray()),
  )
  assert.is(items.length, 2)
})

registry('an unexpected error is answered generically with an id, never with its message', async () => {
  const r = createRegistry(catalogue)
  r.register({ Health: async () => { throw new Error('SQLITE_ERROR: no such table: secrets') } }, 'test')
  r.seal()
  const dispatcher = createDispatcher({ registry: r, authenticate: async () => ({ kind: 'guest' }), log: pino({ level: 'silent' }), clock: { now: () => 0 } })
  try {
    await lastValueFrom(dispatcher.dispatch({ op: 'Health', credentials: {}, input: {}, transport: 'internal', requestId: 'r3' }))
    assert.unreachable()
  } catch (err) {
    assert.match((err as Error).message, /^internal error \(id [0-9a-f]{8}\)$/)
  }
})

registry.run()
