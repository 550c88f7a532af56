// Ephemeral events (kinds 20000–29999: every request and reply) kept in memory for their retention. NIP-01 has a
// relay forward them without storing; we keep them a while so that a daemon or a wallet whose connection dropped
// gets, when it subscribes again with `since`, what was sent meanwhile. Writing each one to SQLite was more than
// half of the relay thread's work in a round trip (two events, each a transaction of several index writes), and
// for almost all of them useless: whoever they name heard them live. So every ephemeral event is kept here, and only
// one that nobody it names heard live is also written to disk (client-session.ts), where it survives a restart of
// the relay. This window is bounded by bytes as well as by time: past `maxBytes` the oldest leave first; they were
// heard when they were sent, and a reconnect needs only the newest.
import { liveFilter, matchesLive, type Filter, type MatchedFields } from './filter.js'
import type { NostrEvent } from './nostr-event.js'

/** Where a page of a query starts, and an event as sent (the same shapes as event-store.ts's). */
export interface PageCursor {
  createdAt: number
  id: string
}
export interface PageEvent {
  id: string
  createdAt: number
  raw: string
}

/**
 * One page from two sources each already in page order (created_at DESC, id ASC): at most `limit`, in that order,
 * without the `first` events `inSecond` says the second source holds too (it has them in their place).
 */
export function mergePages(first: PageEvent[], second: PageEvent[], limit: number, inSecond: (id: string) => boolean): PageEvent[] {
  const merged: PageEvent[] = []
  let i = 0
  let j = 0
  while (merged.length < limit && (i < first.length || j < second.length)) {
    const a = first[i]
    const b = second[j]
    if (a && inSecond(a.id)) i++
    else if (!b || (a && (a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id < b.id)))) merged.push(first[i++]!)
    else merged.push(second[j++]!)
  }
  return merged
}

export interface RecentEvents {
  /** Keeps an event until `expiresAt` (seconds) or until newer ones need its room. */
  add(event: NostrEvent, raw: string, expiresAt: number): void
  has(id: string): boolean
  /** NIP-09 by id: removes the event when `pubkey` wrote it; whether it did. */
  deleteOwn(id: string, pubkey: string): boolean
  /** Kept events matching the filter, unexpired at `now`, newest first (created_at DESC, id ASC), after `cursor`. */
  page(filter: Filter, now: number, limit: number, cursor?: PageCursor): PageEvent[]
  /** Drops the expired events at the front of the window; returns how many. */
  sweep(now: number): number
  /** Bytes counted against `maxBytes`, and events held. */
  bytes(): number
  size(): number
}

interface Entry {
  /** What filters read (not the content or signature: `raw` holds the whole event, and is what is sent). */
  event: MatchedFields
  raw: string
  expiresAt: number
  size: number
  /** Distinct `p` tag values: the index a reconnecting client's `#p` filter reads. */
  ps: string[]
  gone: boolean
}

/** A queue in arrival order whose front is an index, so taking from it costs nothing (Array#shift copies). */
class Fifo<T> {
  private items: T[] = []
  private head = 0
  push(item: T): void {
    this.items.push(item)
  }
  first(): T | undefined {
    return this.items[this.head]
  }
  shift(): T | undefined {
    const item = this.items[this.head]
    if (item === undefined) return undefined
    this.items[this.head++] = undefined as T
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return item
  }
  get length(): number {
    return this.items.length - this.head
  }
  /** Newest first. */
  *newest(): Generator<T> {
    for (let i = this.items.length - 1; i >= this.head; i--) yield this.items[i]!
  }
}

/**
 * What an event costs the heap, roughly: its JSON, the fields filters read (id, key and tags as strings and arrays),
 * the entry, its index slots and their Map entries. Measured: a daemon under Nostr load for 10 s held 27-30 MB more
 * with a 16 MiB window counted at twice the JSON while the whole parsed event was kept; the content and signature
 * are no longer kept, and the count is left at three times as a margin.
 */
const entryOverhead = 512
const sizeOf = (raw: string, ps: number) => 3 * raw.length + entryOverhead + 64 * ps

export function recentEvents(maxBytes: () => number): RecentEvents {
  const byId = new Map<string, Entry>()
  const byP = new Map<string, Fifo<Entry>>()
  const all = new Fifo<Entry>()
  let bytes = 0

  /** Takes the oldest entry out of the window and out of its `p` queues (it is at their front: same order). */
  function dropOldest(): void {
    const entry = all.shift()
    if (!entry) return
    for (const p of entry.ps) {
      const queue = byP.get(p)
      if (!queue) continue
      while (queue.first()?.gone || queue.first() === entry) queue.shift()
      if (queue.length === 0) byP.delete(p)
    }
    forget(entry)
  }
  function forget(entry: Entry): void {
    if (entry.gone) return
    entry.gone = true
    byId.delete(entry.event.id)
    bytes -= entry.size
  }
  /** Gone entries at the front are only markers now: taken out so they hold no memory. */
  function trimFront(): void {
    while (all.first()?.gone) dropOldest()
  }

  return {
    add(event, raw, expiresAt) {
      if (byId.has(event.id)) return
      const ps = [...new Set(event.tags.filter(tag => tag[0] === 'p' && tag.length > 1).map(tag => tag[1]!))]
      const fields = { id: event.id, pubkey: event.pubkey, kind: event.kind, created_at: event.created_at, tags: event.tags }
      const entry: Entry = { event: fields, raw, expiresAt, size: sizeOf(raw, ps.length), ps, gone: false }
      byId.set(event.id, entry)
      all.push(entry)
      for (const p of ps) {
        let queue = byP.get(p)
        if (!queue) byP.set(p, (queue = new Fifo()))
        queue.push(entry)
      }
      bytes += entry.size
      while (bytes > maxBytes() && all.length > 1) dropOldest()
      trimFront()
    },
    has: id => byId.has(id),
    deleteOwn(id, pubkey) {
      const entry = byId.get(id)
      if (!entry || entry.event.pubkey !== pubkey) return false
      forget(entry)
      trimFront()
      return true
    },
    page(filter, now, limit, cursor) {
      if (limit <= 0 || byId.size === 0) return []
      const live = liveFilter(filter)
      const found: Entry[] = []
      const consider = (entry: Entry) => {
        if (entry.gone || entry.expiresAt <= now || !matchesLive(live, entry.event)) return
        const at = entry.event.created_at
        if (cursor && !(at < cursor.createdAt || (at === cursor.createdAt && entry.event.id > cursor.id))) return
        found.push(entry)
      }
      // The narrowest index the filter allows: its ids, else its `#p` values, else the whole window.
      const ps = filter.tags.get('p')
      if (filter.ids) {
        for (const id of new Set(filter.ids)) {
          const entry = byId.get(id)
          if (entry) consider(entry)
        }
      } else if (ps) {
        const seen = ps.length > 1 ? new Set<Entry>() : undefined
        for (const p of ps) {
          for (const entry of byP.get(p)?.newest() ?? []) {
            if (seen) {
              if (seen.has(entry)) continue
              seen.add(entry)
            }
            consider(entry)
          }
        }
      } else {
        for (const entry of all.newest()) consider(entry)
      }
      found.sort((a, b) => b.event.created_at - a.event.created_at || (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0))
      return found.slice(0, limit).map(entry => ({ id: entry.event.id, createdAt: entry.event.created_at, raw: entry.raw }))
    },
    sweep(now) {
      let removed = 0
      // Retention is the same for every event, so the front expires first; an earlier NIP-40 expiry is hidden by
      // `page` until the event reaches the front.
      while (all.first() && (all.first()!.gone || all.first()!.expiresAt <= now)) {
        if (!all.first()!.gone) removed++
        dropOldest()
      }
      return removed
    },
    bytes: () => bytes,
    size: () => byId.size,
  }
}
