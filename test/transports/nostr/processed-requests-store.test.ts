// The Nostr transport's exactly-once claims on both engines: the same cases on SQLite — through SqlStore
// and through the raw connection the daemon passes on SQLite — and on a real PostgreSQL 15, where two daemons
// receiving the same request on two connections must see exactly one claim.
import fs from 'node:fs'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { openStore, postgresSqlStore } from '../../../src/store/index.js'
import {
  processedRequests, type ClaimRow, type ProcessedRequestsStore,
} from '../../../src/transports/nostr/processed-requests.js'
import type { StoredReply } from '../../../src/nostr-codecs/index.js'
import { tempDataDir } from '../../support/daemon.js'
import { logPostgresSkipped, openEngines } from '../../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

interface Variant {
  name: string
  /** The claim store, and a second one on the same database (another connection: another daemon). */
  open(): Promise<{ first: ProcessedRequestsStore; second: () => Promise<{ store: ProcessedRequestsStore; close(): Promise<void> }>; close(): Promise<void> }>
}

const variants: Variant[] = both.engines.map(engine => ({
  name: `${engine.engine} through SqlStore`,
  async open() {
    if (engine.engine === 'sqlite') {
      const dataDir = tempDataDir()
      const opened = openStore({ dataDir })
      return {
        first: { sql: opened.sql },
        second: async () => {
          const other = openStore({ dataDir })
          return { store: { sql: other.sql }, close: async () => other.close() }
        },
        close: async () => (opened.close(), fs.rmSync(dataDir, { recursive: true, force: true })),
      }
    }
    const { store, close } = await engine.open()
    const url = both.postgres!.url // the first PostgreSQL open is the file's own database
    return {
      first: { sql: store },
      second: async () => {
        const other = postgresSqlStore({ url })
        return { store: { sql: other }, close: () => other.close() }
      },
      close,
    }
  },
}))
variants.push({
  name: 'sqlite through the raw connection (the daemon on SQLite)',
  async open() {
    const dataDir = tempDataDir()
    const opened = openStore({ dataDir })
    return {
      first: { sql: opened.sql, local: opened.db },
      second: async () => {
        const other = openStore({ dataDir })
        return { store: { sql: other.sql, local: other.db }, close: async () => other.close() }
      },
      close: async () => (opened.close(), fs.rmSync(dataDir, { recursive: true, force: true })),
    }
  },
})

let serial = 0
const row = (createdAt = 1_760_000_000): ClaimRow => ({
  eventId: (++serial).toString(16).padStart(64, '0'),
  requester: 'a'.repeat(64),
  appPubkey: 'b'.repeat(64),
  createdAt,
  receivedAt: createdAt * 1000 + 5,
})
const reply = (sentAt: number, ...contents: string[]): StoredReply => ({ sentAt, contents })

for (const variant of variants) {
  const test = suite(`processed requests on ${variant.name}`)
  let opened: Awaited<ReturnType<Variant['open']>>
  test.before(async () => {
    opened = await variant.open()
  })
  test.after(async () => {
    await opened?.close()
    if (variant === variants.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('a new request is claimed; the same one again is interrupted until answered, then answered with its reply', async () => {
    const claims = processedRequests(opened.first)
    const [a, b] = [row(), row()]
    assert.equal(await claims.claim([a, b]), [{ state: 'claimed' }, { state: 'claimed' }])
    assert.equal(await claims.claim([b, a]), [{ state: 'interrupted' }, { state: 'interrupted' }])
    await claims.answer(a.eventId, reply(1_760_000_001, 'sealed'))
    assert.equal(await claims.claim([a, row(), b]), [
      { state: 'answered', reply: reply(1_760_000_001, 'sealed') },
      { state: 'claimed' },
      { state: 'interrupted' },
    ])
  })

  test('a re-sent reply replaces the stored one; replies of one turn commit together; a CLINK flag is kept', async () => {
    const claims = processedRequests(opened.first)
    const [a, b] = [row(), row()]
    await claims.claim([a, b])
    await claims.answer(a.eventId, reply(10, 'one'))
    const clink: StoredReply = { sentAt: 12, contents: ['x', 'y'], clinkVersion: true }
    await Promise.all([claims.answer(a.eventId, reply(11, 'two')), claims.answer(b.eventId, clink)])
    assert.equal(await claims.claim([a, b]), [{ state: 'answered', reply: reply(11, 'two') }, { state: 'answered', reply: clink }])
  })

  test('answeredHere: only replies with contents sent by this process', async () => {
    const claims = processedRequests(opened.first)
    const [a, b] = [row(), row()]
    await claims.claim([a, b])
    await claims.answer(a.eventId, reply(1, 'sent'))
    await claims.answer(b.eventId, reply(1))
    assert.ok(claims.answeredHere(a.eventId))
    assert.not.ok(claims.answeredHere(b.eventId), 'a dropped request sent nothing')
    assert.not.ok(processedRequests(opened.first).answeredHere(a.eventId), 'another process did not send it')
  })

  test('newest created_at and pruning by age', async () => {
    const { store: fresh, close } = await variant.open().then(async v => ({ store: v.first, close: v.close }))
    try {
      const claims = processedRequests(fresh)
      assert.is(await claims.newestCreatedAt(), undefined)
      await claims.claim([row(100), row(300), row(200)])
      assert.is(await claims.newestCreatedAt(), 300)
      assert.is(await claims.prune(201), 2)
      assert.is(await claims.newestCreatedAt(), 300)
      assert.is(await claims.prune(201), 0)
    } finally {
      await close()
    }
  })

  test('two daemons receiving the same requests at once (two connections): each request is claimed exactly once', async () => {
    const other = await opened.second()
    try {
      const mine = processedRequests(opened.first)
      const theirs = processedRequests(other.store)
      const rows = Array.from({ length: 40 }, () => row())
      // Overlapping bursts in opposite orders, several in flight on each side.
      const bursts = [
        ...[0, 10, 20, 30].map(at => mine.claim(rows.slice(at, at + 10)).then(c => ({ rows: rows.slice(at, at + 10), c }))),
        ...[0, 10, 20, 30].map(at => {
          const burst = rows.slice(at, at + 10).reverse()
          return theirs.claim(burst).then(c => ({ rows: burst, c }))
        }),
      ]
      const claimed = new Map<string, number>()
      for (const { rows: burst, c } of await Promise.all(bursts)) {
        burst.forEach((r, i) => {
          assert.ok(c[i]!.state === 'claimed' || c[i]!.state === 'interrupted', c[i]!.state)
          if (c[i]!.state === 'claimed') claimed.set(r.eventId, (claimed.get(r.eventId) ?? 0) + 1)
        })
      }
      assert.is(claimed.size, 40, 'every request claimed by one of them')
      assert.ok([...claimed.values()].every(n => n === 1), 'none claimed twice')
      // What one daemon answered, the other finds answered.
      await mine.answer(rows[0]!.eventId, reply(5, 'from mine'))
      assert.equal(await theirs.claim([rows[0]!]), [{ state: 'answered', reply: reply(5, 'from mine') }])
    } finally {
      await other.close()
    }
  })

  test.run()
}
