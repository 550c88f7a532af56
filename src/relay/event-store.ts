// The relay's own SQLite file, <dataDir>/relay.sqlite, apart from the daemon's database: the relay is a
// separate room that could be swapped for an external relay, so it creates and versions its own small schema.
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import { ensureDataDir } from '../store/index.js'
import { BoundedMap } from '../limits/index.js'
import { mayMatchEphemeral, type Filter } from './filter.js'
import { mergePages, recentEvents } from './recent-events.js'
import { storedPageQuery, type QueryCursor } from './stored-query.js'
import {
  deletionKind,
  dTagOf,
  expirationOf,
  indexedTags,
  kindClass,
  rawOf,
  type NostrEvent,
} from './nostr-event.js'

const schemaVersion = 2

const schema = `
CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY,
  pubkey TEXT NOT NULL,
  kind INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  -- '' for replaceable kinds, the d tag for addressable ones, NULL otherwise: the key of "only the latest counts"
  d_tag TEXT,
  -- unix seconds after which the event is gone (ephemeral retention or NIP-40); NULL keeps it
  expires_at INTEGER,
  raw TEXT NOT NULL,
  -- what the event counts against the storage budgets (eventSize), and the client address that wrote it ('' for
  -- the daemon's own connections, which no address budget covers)
  size INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS events_created ON events (created_at);
CREATE INDEX IF NOT EXISTS events_kind_created ON events (kind, created_at);
CREATE INDEX IF NOT EXISTS events_pubkey_kind ON events (pubkey, kind, d_tag);
CREATE INDEX IF NOT EXISTS events_expires ON events (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS tags (
  event_id TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_name_value ON tags (name, value, event_id);
CREATE INDEX IF NOT EXISTS tags_event ON tags (event_id);
`

// Bytes stored in all (''), per author ('a:' + pubkey) and per writing address ('s:' + address), kept by triggers so
// that every way an event leaves (replacement, NIP-09, expiry, eviction) is counted without each path knowing.
const usageSchema = `
CREATE TABLE IF NOT EXISTS usage (key TEXT PRIMARY KEY, bytes INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_usage_in AFTER INSERT ON events BEGIN
  INSERT INTO usage (key, bytes) VALUES ('', new.size), ('a:' || new.pubkey, new.size), ('s:' || new.source, new.size)
    ON CONFLICT (key) DO UPDATE SET bytes = bytes + excluded.bytes;
END;
CREATE TRIGGER IF NOT EXISTS events_usage_out AFTER DELETE ON events BEGIN
  UPDATE usage SET bytes = bytes - old.size WHERE key IN ('', 'a:' || old.pubkey, 's:' || old.source);
  DELETE FROM usage WHERE key IN ('a:' || old.pubkey, 's:' || old.source) AND bytes <= 0;
END;
`

/** What a row and its indexes cost beyond the event's JSON, measured roughly on SQLite's file (bytes). */
const rowOverhead = 200
const tagOverhead = 100

/** Version 1 files had no sizes: every event is measured and the usage table filled once. */
const fromVersion1 = `
ALTER TABLE events ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT '';
UPDATE events SET size = length(CAST(raw AS BLOB)) + ${rowOverhead} +
  ${tagOverhead} * (SELECT count(*) FROM tags WHERE tags.event_id = events.id);
`

/** What an event counts against the storage budgets: its JSON plus its rows and index entries. */
export function eventSize(event: NostrEvent): number {
  return Buffer.byteLength(rawOf(event)) + rowOverhead + tagOverhead * indexedTags(event).length
}

/**
 * What happened to an event offered for storage; only `stored` events are broadcast. `full`, `author-full` and
 * `address-full`: a storage budget (total, the author's, the writing address's) had no room, nothing was written.
 */
export type SaveOutcome = 'stored' | 'duplicate' | 'newer-exists' | 'deleted' | 'full' | 'author-full' | 'address-full'

/** Storage budgets in bytes (eventSize); read at every save so that new limits apply at once. */
export interface StorageBudget {
  maxBytes: number
  maxAuthorBytes: number
  maxAddressBytes: number
}

/** Who writes: the client address, and whether it is the daemon itself (no author or address budget, see save). */
export interface SaveSource {
  address: string
  own: boolean
}

export type { QueryCursor } from './stored-query.js'

/** A stored event as sent to clients: its JSON exactly as stored, with what is needed to merge result lists. */
export interface StoredEvent {
  id: string
  createdAt: number
  raw: string
}

export interface EventStore {
  /**
   * Keeps an ephemeral event in memory for its retention (recent-events.ts), where queries find it as they find
   * stored ones; `duplicate` when it is already kept there or on disk. Writing it to disk as well is `save`'s.
   */
  remember(event: NostrEvent, raw: string, nowSeconds: number): 'kept' | 'duplicate'
  /** Stores an event with NIP-01 replacement and NIP-09 deletion rules, in one transaction. */
  save(event: NostrEvent, nowSeconds: number, source?: SaveSource): SaveOutcome
  /**
   * Stores several events in one transaction, each in its own savepoint: an event that fails comes back as its
   * Error and rolls back alone. Throws only when the shared commit fails (then none is stored).
   */
  saveBatch(items: { event: NostrEvent; now: number; source?: SaveSource }[]): (SaveOutcome | Error)[]
  /** The stored, unexpired events matching a filter, newest first, at most `filter.limit`. */
  query(filter: Filter, nowSeconds: number): StoredEvent[]
  /** One page of a filter's stored events: at most `limit`, newest first, after `cursor` when given. */
  queryPage(filter: Filter, nowSeconds: number, limit: number, cursor?: QueryCursor): StoredEvent[]
  /** Bytes counted against the storage budget, in all. */
  usageBytes(): number
  /** Bytes of ephemeral events kept in memory (counted as against `recentBytes`). */
  memoryBytes(): number
  /** Deletes expired events; returns how many. */
  sweep(nowSeconds: number): number
  close(): void
}

export interface EventStoreOptions {
  dataDir: string
  ephemeralRetentionSeconds: number
  /** Bytes of ephemeral events kept in memory (default 8 MiB); past it the oldest leave first. */
  recentBytes?: () => number
  /** Absent: no budget (tests of the NIP rules alone). */
  budget?: () => StorageBudget
}

/**
 * Ephemeral events kept in memory by default (counted at three times their JSON, recent-events.ts): some seconds of a
 * busy daemon's requests and replies, minutes of a quiet one's. Whoever an event names and who was not there to
 * hear it finds it on disk, so the window only serves a reconnect in the seconds after a drop. It was 16 MiB: in an
 * hour of mixed traffic that filled the relay thread's heap from 12 to 28-30 MB, the largest part of the process's
 * memory that one of our own numbers decides.
 */
const defaultRecentBytes = 8 * 1024 * 1024
const unlimited: StorageBudget = { maxBytes: Infinity, maxAuthorBytes: Infinity, maxAddressBytes: Infinity }
/** Events evicted per statement when the store is full. */
const evictBatch = 64

export function openEventStore(opts: EventStoreOptions): EventStore {
  ensureDataDir(opts.dataDir)
  const file = path.join(opts.dataDir, 'relay.sqlite')
  const existed = fs.existsSync(file)
  const db = new Database(file)
  if (!existed) fs.chmodSync(file, 0o600)
  db.pragma('journal_mode = WAL')
  // Relay events are not money: NORMAL in WAL mode survives a process crash and only risks the last commits on
  // power loss, and keeps ingest fast.
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  const version = db.pragma('user_version', { simple: true }) as number
  if (version > schemaVersion) {
    db.close()
    throw new Error(`${file} has relay schema ${version}, newer than this relay (${schemaVersion})`)
  }
  // The relay has its own thread (src/relay/relay-thread.ts) and is this file's only connection: SQLite's own
  // checkpoints inside commits stall nobody else, and a WAL that grew under a burst is cut back to this size.
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`)
  db.transaction(() => {
    if (version === 1) db.exec(fromVersion1)
    db.exec(schema)
    const hadUsage = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'usage'").get() !== undefined
    db.exec(usageSchema)
    if (!hadUsage) {
      db.exec(`INSERT INTO usage (key, bytes) SELECT '', coalesce(sum(size), 0) FROM events;
        INSERT INTO usage (key, bytes) SELECT 'a:' || pubkey, sum(size) FROM events GROUP BY pubkey;
        INSERT INTO usage (key, bytes) SELECT 's:' || source, sum(size) FROM events GROUP BY source;`)
    }
    db.pragma(`user_version = ${schemaVersion}`)
  })()
  const budget = opts.budget ?? (() => unlimited)
  const recent = recentEvents(opts.recentBytes ?? (() => defaultRecentBytes))
  // No row on disk expires after this (unix s): past it, an ephemeral event cannot be a duplicate of one on disk, and
  // `remember` skips the lookup (most of the time: ephemeral events reach the disk only when their addressee was away).
  // Raised by every write of an expiring event; a rolled-back write leaves it too high, which costs only a lookup.
  let expiringUntil = (db.prepare('SELECT max(expires_at) AS last FROM events WHERE expires_at IS NOT NULL').get() as { last: number | null }).last ?? 0

  const findById = db.prepare<[string], { expires_at: number | null }>('SELECT expires_at FROM events WHERE id = ?')
  const removeById = db.prepare<[string]>('DELETE FROM events WHERE id = ?')
  const findSameAddress = db.prepare<{ pubkey: string; kind: number; d: string }, { id: string; created_at: number }>(
    'SELECT id, created_at FROM events WHERE pubkey = @pubkey AND kind = @kind AND d_tag = @d',
  )
  const insertEvent = db.prepare(`INSERT INTO events (id, pubkey, kind, created_at, d_tag, expires_at, raw, size, source)
                                  VALUES (@id, @pubkey, @kind, @created_at, @d_tag, @expires_at, @raw, @size, @source)`)
  const insertTag = db.prepare('INSERT INTO tags (event_id, name, value) VALUES (@eventId, @name, @value)')
  const deletedById = db.prepare<{ id: string; pubkey: string }>(`SELECT 1 FROM tags t JOIN events d ON d.id = t.event_id
    WHERE t.name = 'e' AND t.value = @id AND d.kind = ${deletionKind} AND d.pubkey = @pubkey LIMIT 1`)
  const deletedByAddress = db.prepare<{ address: string; pubkey: string; createdAt: number }>(`SELECT 1 FROM tags t
    JOIN events d ON d.id = t.event_id WHERE t.name = 'a' AND t.value = @address AND d.kind = ${deletionKind}
    AND d.pubkey = @pubkey AND d.created_at >= @createdAt LIMIT 1`)
  // A deletion of a deletion has no effect (NIP-09), hence kind != 5.
  const deleteOwnById = db.prepare(`DELETE FROM events WHERE id = @id AND pubkey = @pubkey AND kind != ${deletionKind}`)
  const deleteOwnByAddress = db.prepare(`DELETE FROM events
    WHERE kind = @kind AND pubkey = @pubkey AND d_tag = @d AND created_at <= @createdAt`)
  const sweepExpired = db.prepare('DELETE FROM events WHERE expires_at IS NOT NULL AND expires_at <= @now')
  const usageOf = db.prepare<[string], { bytes: number }>('SELECT bytes FROM usage WHERE key = ?')
  // Events that leave soonest go first: every ephemeral one (kept only for a reconnecting daemon), then NIP-40 ones.
  const soonest = db.prepare<[], { id: string; size: number }>(
    `SELECT id, size FROM events WHERE expires_at IS NOT NULL ORDER BY expires_at, rowid LIMIT ${evictBatch}`,
  )
  const bytesOf = (key: string) => usageOf.get(key)?.bytes ?? 0

  /** Room for `size` more bytes, evicting what expires soonest (no more than needed); false when there is none. */
  function makeRoom(size: number, max: number): boolean {
    let over = bytesOf('') + size - max
    while (over > 0) {
      const rows = soonest.all()
      if (rows.length === 0) return false
      for (const row of rows) {
        removeById.run(row.id)
        over -= row.size
        if (over <= 0) break
      }
    }
    return true
  }

  function saveOne(event: NostrEvent, now: number, source: SaveSource = { address: '', own: true }): SaveOutcome {
    const existing = findById.get(event.id)
    if (existing) {
      if (existing.expires_at === null || existing.expires_at > now) return 'duplicate'
      removeById.run(event.id) // expired but not yet swept: the event is new again
    }
    if (deletedById.get({ id: event.id, pubkey: event.pubkey })) return 'deleted'
    // Budgets before anything is written, so a refusal leaves the store as it was.
    const size = eventSize(event)
    const limits = budget()
    if (!source.own) {
      if (bytesOf('a:' + event.pubkey) + size > limits.maxAuthorBytes) return 'author-full'
      if (bytesOf('s:' + source.address) + size > limits.maxAddressBytes) return 'address-full'
    }
    // The daemon's own stored kinds (its NWC info, beacon, metadata) are few and small: they are kept even past the
    // budget. Its ephemeral replies are not: the caller relays them without storing (client-session.ts).
    if (!makeRoom(size, limits.maxBytes) && (!source.own || kindClass(event.kind) === 'ephemeral')) return 'full'
    const cls = kindClass(event.kind)
    const d = cls === 'replaceable' ? '' : cls === 'addressable' ? dTagOf(event) : null
    if (d !== null) {
      const address = `${event.kind}:${event.pubkey}:${d}`
      if (deletedByAddress.get({ address, pubkey: event.pubkey, createdAt: event.created_at })) return 'deleted'
      const current = findSameAddress.all({ pubkey: event.pubkey, kind: event.kind, d })
      // NIP-01: the newest wins; on equal created_at the lowest id is kept.
      if (current.some(c => c.created_at > event.created_at || (c.created_at === event.created_at && c.id < event.id))) {
        return 'newer-exists'
      }
      for (const c of current) removeById.run(c.id)
    }
    const expires = expiresAt(event, now)
    if (expires !== null && expires > expiringUntil) expiringUntil = expires
    insertEvent.run({
      ...event,
      d_tag: d,
      expires_at: expires,
      raw: rawOf(event),
      size,
      source: source.own ? '' : source.address,
    })
    for (const tag of indexedTags(event)) insertTag.run({ eventId: event.id, ...tag })
    if (event.kind === deletionKind) applyDeletion(event)
    return 'stored'
  }
  /** One event in a transaction of its own (a savepoint inside a batch's). */
  const save = db.transaction(saveOne)

  // Ephemeral kinds (20000–29999: the 21000–21003 requests, NWC's 23194–23197) are broadcast AND kept for a while,
  // unlike NIP-01's "not stored": the daemon resubscribes with `since = last seen − slack` after a restart or a
  // dropped connection, and a request sent while it was away must still be there for it. Expiry bounds the cost.
  // All of them are kept in memory (`remember`); the ones nobody they name heard live are saved here as well.
  function expiresAt(event: NostrEvent, now: number): number | null {
    const expiration = expirationOf(event)
    const retention = kindClass(event.kind) === 'ephemeral' ? now + opts.ephemeralRetentionSeconds : undefined
    if (expiration === undefined) return retention ?? null
    return retention === undefined ? expiration : Math.min(expiration, retention)
  }

  function applyDeletion(deletion: NostrEvent): void {
    for (const [name, value] of deletion.tags) {
      if (name === 'e' && value) {
        deleteOwnById.run({ id: value, pubkey: deletion.pubkey })
        recent.deleteOwn(value, deletion.pubkey)
      }
      if (name === 'a' && value) {
        const [kind, pubkey, ...rest] = value.split(':')
        // Only the author's own addresses: a deletion naming someone else's event is stored but does nothing.
        if (pubkey !== deletion.pubkey || !/^\d+$/.test(kind)) continue
        deleteOwnByAddress.run({ kind: Number(kind), pubkey, d: rest.join(':'), createdAt: deletion.created_at })
      }
    }
  }

  // Prepared query shapes, the most used kept: a stranger choosing odd shapes costs a prepare each, never memory.
  const statements = new BoundedMap<string, Database.Statement>(256)

  function query(filter: Filter, now: number): StoredEvent[] {
    return queryPage(filter, now, filter.limit)
  }

  /** One page from disk and from memory, merged in the page order; an event kept in both places comes once. */
  function queryPage(filter: Filter, now: number, limit: number, cursor?: QueryCursor): StoredEvent[] {
    const stored = queryStored(filter, now, limit, cursor)
    const kept = mayMatchEphemeral(filter) ? recent.page(filter, now, limit, cursor) : []
    return kept.length === 0 ? stored : mergePages(stored, kept, limit, id => recent.has(id))
  }

  function queryStored(filter: Filter, now: number, limit: number, cursor?: QueryCursor): StoredEvent[] {
    const query = storedPageQuery(filter, now, limit, cursor)
    if (!query) return []
    // Only parameter names vary, never values; the number of shapes is bounded (kind branches × flags × tag letters).
    let statement = statements.touch(query.sql)
    if (!statement) statements.set(query.sql, (statement = db.prepare(query.sql)))
    return statement.all(query.params) as StoredEvent[]
  }

  type BatchItem = { event: NostrEvent; now: number; source?: SaveSource }
  // A savepoint per event costs two more statements each (about a third of a save, measured with 64-event batches),
  // and an event fails only on an SQLite error (disk full, I/O), never on its content. So the batch runs first as
  // plain statements in one transaction; if one of them throws, that transaction is rolled back whole and the batch
  // runs again with a savepoint per event, where the failure rolls back alone. Saves depend only on the store's
  // state, so the second pass decides the others as the first would have.
  const saveAll = db.transaction((items: BatchItem[]) => items.map(({ event, now, source }) => saveOne(event, now, source)))
  const saveEach = db.transaction((items: BatchItem[]) =>
    items.map(({ event, now, source }) => {
      try {
        return save(event, now, source)
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err))
      }
    }),
  )
  function saveBatch(items: BatchItem[]): (SaveOutcome | Error)[] {
    try {
      return saveAll(items)
    } catch {
      return saveEach(items)
    }
  }

  return {
    remember(event, raw, now) {
      if (recent.has(event.id)) return 'duplicate'
      const existing = now < expiringUntil ? findById.get(event.id) : undefined
      if (existing && (existing.expires_at === null || existing.expires_at > now)) return 'duplicate'
      recent.add(event, raw, expiresAt(event, now) ?? now + opts.ephemeralRetentionSeconds)
      return 'kept'
    },
    save: (event, now, source) => save(event, now, source),
    saveBatch: items => saveBatch(items),
    query,
    queryPage,
    usageBytes: () => bytesOf(''),
    memoryBytes: () => recent.bytes(),
    sweep: now => sweepExpired.run({ now }).changes + recent.sweep(now),
    close: () => db.close(),
  }
}
