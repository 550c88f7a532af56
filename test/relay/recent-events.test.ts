// The relay's memory window of ephemeral events (src/relay/recent-events.ts) against a plain reading of the same
// events: every page of every filter shape (ids, `#p`, neither) in NIP-01 order after a cursor, the byte bound (the
// oldest leave first), NIP-09 by the author only, and the sweep of expired events.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { recentEvents, type PageCursor } from '../../src/relay/recent-events.js'
import type { Filter } from '../../src/relay/filter.js'
import { rawOf, type NostrEvent } from '../../src/relay/nostr-event.js'

const test = suite('relay recent events')
const keys = Array.from({ length: 3 }, () => generateSecretKey())
const targets = Array.from({ length: 4 }, () => getPublicKey(generateSecretKey()))
const now = 1_800_000_000

/** Deterministic pseudo-random events: created_at out of arrival order, one to two `p` tags. */
function events(count: number, seed = 7): NostrEvent[] {
  let state = seed
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state % n
  }
  return Array.from({ length: count }, (_, i) => {
    const ps = [targets[next(4)]!, ...(next(3) === 0 ? [targets[next(4)]!] : [])]
    return finalizeEvent(
      { kind: 21000 + next(2), created_at: now - next(40), tags: ps.map(p => ['p', p]), content: `e${i}` },
      keys[next(3)]!,
    )
  })
}

const filterOf = (fields: Partial<Filter>): Filter => ({ tags: new Map(), limit: 1000, ...fields })
/** What a page must hold: the matching events, newest first, ids ascending on a tie, after the cursor. */
function expectedPage(all: NostrEvent[], match: (e: NostrEvent) => boolean, limit: number, cursor?: PageCursor): string[] {
  return all
    .filter(match)
    .filter(e => !cursor || e.created_at < cursor.createdAt || (e.created_at === cursor.createdAt && e.id > cursor.id))
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1))
    .slice(0, limit)
    .map(e => e.id)
}

test('pages match a plain filter of the same events for ids, #p and whole-window filters, cursor by cursor', () => {
  const all = events(300)
  const recent = recentEvents(() => Infinity)
  for (const e of all) recent.add(e, rawOf(e), now + 600)
  const author = getPublicKey(keys[1]!)
  const shapes: [Partial<Filter>, (e: NostrEvent) => boolean][] = [
    [{ ids: [all[3]!.id, all[150]!.id, 'f'.repeat(64)] }, e => e.id === all[3]!.id || e.id === all[150]!.id],
    [{ tags: new Map([['p', [targets[0]!]]]) }, e => e.tags.some(t => t[1] === targets[0])],
    [{ tags: new Map([['p', [targets[1]!, targets[2]!]]]), kinds: [21001] }, e => e.kind === 21001 && e.tags.some(t => t[1] === targets[1] || t[1] === targets[2])],
    [{ authors: [author], since: now - 20 }, e => e.pubkey === author && e.created_at >= now - 20],
    [{ kinds: [21000], until: now - 10 }, e => e.kind === 21000 && e.created_at <= now - 10],
  ]
  for (const [fields, match] of shapes) {
    const filter = filterOf(fields)
    let cursor: PageCursor | undefined
    const paged: string[] = []
    for (;;) {
      const page = recent.page(filter, now, 7, cursor)
      assert.equal(page.map(e => e.id), expectedPage(all, match, 7, cursor))
      if (page.length === 0) break
      paged.push(...page.map(e => e.id))
      const last = page.at(-1)!
      cursor = { createdAt: last.createdAt, id: last.id }
    }
    assert.equal(paged, expectedPage(all, match, Infinity))
  }
})

test('past its byte bound the window lets the oldest go first, and its index forgets them too', () => {
  const all = events(100, 11)
  let bound = Infinity
  const recent = recentEvents(() => bound)
  for (const e of all.slice(0, 50)) recent.add(e, rawOf(e), now + 600)
  const perEvent = recent.bytes() / 50
  bound = Math.floor(perEvent * 20)
  for (const e of all.slice(50)) recent.add(e, rawOf(e), now + 600)
  assert.ok(recent.bytes() <= bound, `${recent.bytes()} bytes held, bound ${bound}`)
  const kept = all.filter(e => recent.has(e.id))
  assert.ok(kept.length >= 15 && kept.length <= 21, `${kept.length} kept`)
  assert.equal(kept, all.slice(all.length - kept.length), 'the newest are the ones kept')
  const byP = filterOf({ tags: new Map([['p', [targets[2]!]]]) })
  const keptIds = new Set(kept.map(e => e.id))
  assert.equal(recent.page(byP, now, 1000).map(e => e.id), expectedPage(all, e => keptIds.has(e.id) && e.tags.some(t => t[1] === targets[2]), 1000))
})

test('NIP-09 removes an event for its author only; the sweep drops what expired, and pages never show it', () => {
  const all = events(10, 3)
  const recent = recentEvents(() => Infinity)
  all.forEach((e, i) => recent.add(e, rawOf(e), i < 4 ? now + 10 : now + 600))
  const victim = all[6]!
  const stranger = getPublicKey(generateSecretKey())
  assert.not.ok(recent.deleteOwn(victim.id, stranger))
  assert.ok(recent.has(victim.id))
  assert.ok(recent.deleteOwn(victim.id, victim.pubkey))
  assert.not.ok(recent.has(victim.id))
  const everything = filterOf({})
  assert.equal(recent.page(everything, now + 20, 1000).length, 5, 'four expired and one deleted are hidden')
  assert.is(recent.sweep(now + 20), 4)
  assert.is(recent.size(), 5)
  assert.is(recent.sweep(now + 601), 5)
  assert.is(recent.size(), 0)
  assert.is(recent.bytes(), 0)
})

test.run()
