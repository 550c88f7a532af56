// Exactly-once for request events (upstream's dedupe is in memory for 20 minutes and lost at
// restart). A request is claimed in SQLite before its operation runs and its encrypted reply is stored after (and
// before it is sent, inbound.ts), so
// the same event delivered again — by a second relay, a resubscription or after a restart — runs nothing and is
// answered with the stored reply. Rows older than the accepted event age are pruned: such events are dropped as
// stale before they get here, so forgetting them cannot let one run twice. A call of a `repeatable` operation (one
// that only reads) is never claimed: it is run again when it comes again (inbound.ts).
//
// A busy relay delivers requests in bursts: the claims of one burst commit in one transaction, and so do the
// replies stored in one turn of the event loop.
//
// The table is reached through SqlStore, so the claim holds across daemons on one PostgreSQL: two daemons that
// receive the same request both insert it, the second waits on the first's row and finds it taken (the claim is
// the first write of its transaction, and nothing runs before the commit). On PostgreSQL a burst's rows are
// inserted in event-id order, so two daemons claiming overlapping bursts lock in the same order.
//
// On SQLite the daemon passes its raw connection too (`local`), for one reason: under `[store] synchronous =
// "full"` a commit through SqlStore would stop the event loop in fsync. With the raw connection `claim` commits
// without that sync, syncs the WAL on the thread pool (`walSyncFor`) and only then hands the claims back, so no
// request runs before its claim is on disk (a request whose effect lies outside the database, a channel opened on
// the node, must not run twice after a power loss); stored replies are committed (visible to a redelivery at once)
// and synced the same way right after. Both paths run the same statements.
import { commitWithoutSync, walSyncFor, type Db, type SqlExecutor, type SqlStore } from '../../store/index.js'
import { AgedSet } from '../../limits/index.js'
import type { StoredReply } from '../../nostr-codecs/index.js'

export type Claim =
  | { state: 'claimed' }
  | { state: 'answered'; reply: StoredReply }
  /** Claimed by an earlier run of the daemon that stopped before answering: its outcome is unknown. */
  | { state: 'interrupted' }

export interface ClaimRow {
  eventId: string
  requester: string
  appPubkey: string
  createdAt: number
  receivedAt: number
}

export interface ProcessedRequests {
  /** Claims requests in one transaction; one Claim per row, in order. Resolves once the claims are durable. */
  claim(rows: readonly ClaimRow[]): Promise<Claim[]>
  /**
   * Stores (or, after a re-send, updates) the reply of a request. Replies stored in the same turn of the event loop
   * commit together; the promise settles once this one is committed.
   */
  answer(eventId: string, reply: StoredReply): Promise<void>
  /**
   * Whether this process sent a reply to the request (or the stored reply again). A relay replaying the request to a
   * renewed subscription needs no further answer: the reply went out through the relay pool, which holds it until a
   * relay confirms it. Bounded: a request forgotten here is answered again with its stored reply, as after a restart.
   */
  answeredHere(eventId: string): boolean
  /** Remembers a request this process answered without a claim or a stored reply (a repeatable read, inbound.ts). */
  answeredUnstored(eventId: string): void
  /** created_at (unix s) of the newest request taken, to resume the subscription after a restart. */
  newestCreatedAt(): Promise<number | undefined>
  /** Forgets requests created before `unixSeconds`; returns how many. */
  prune(unixSeconds: number): Promise<number>
}

export interface ProcessedRequestsStore {
  sql: SqlStore
  /** SQLite: the same connection as `sql`, raw, so claims and replies commit without an fsync on the event loop. */
  local?: Db
}

export interface AnsweredMemory {
  /**
   * How long a request answered here is remembered as such: past the accepted event age and the allowance for
   * clocks ahead, a replay of it is dropped as stale before anyone asks. Unset: remembered until the count's bound.
   */
  forgetAfterMs?: number
  /** The clock those ages are read on (the transport's). */
  now?: () => number
}

/**
 * Requests remembered as replied by this process: a minute of replies at several hundred per second. The age limit
 * keeps a quieter daemon from filling it over hours (an hour of soak traffic held 23,000 entries).
 */
const repliedMemory = 50_000

const insertSql = `INSERT INTO nostr_requests (event_id, requester, app_pubkey, created_at, received_at)
                   VALUES (@eventId, @requester, @appPubkey, @createdAt, @receivedAt)
                   ON CONFLICT (event_id) DO NOTHING`
const replySql = 'SELECT reply FROM nostr_requests WHERE event_id = ?'
const answerSql = 'UPDATE nostr_requests SET reply = ? WHERE event_id = ?'
const newestSql = 'SELECT MAX(created_at) AS newest FROM nostr_requests'
const pruneSql = 'DELETE FROM nostr_requests WHERE created_at < ?'

/** What a claim found when the row was there already. */
const taken = (stored: string | null | undefined): Claim =>
  stored === null || stored === undefined ? { state: 'interrupted' } : { state: 'answered', reply: JSON.parse(stored) as StoredReply }

const asParams = (row: ClaimRow) => ({
  eventId: row.eventId,
  requester: row.requester,
  appPubkey: row.appPubkey,
  createdAt: row.createdAt,
  receivedAt: row.receivedAt,
})

interface Commits {
  claim(rows: readonly ClaimRow[]): Promise<Claim[]>
  answerAll(rows: { eventId: string; reply: StoredReply }[]): Promise<void>
}

/** The raw SQLite connection: commits without sync, the WAL synced on the thread pool. */
function localCommits(db: Db): Commits {
  const insert = db.prepare(insertSql)
  const reply = db.prepare(replySql)
  const answer = db.prepare(answerSql)
  const claimOne = (row: ClaimRow): Claim =>
    insert.run(asParams(row)).changes === 1 ? { state: 'claimed' } : taken((reply.get(row.eventId) as { reply: string | null } | undefined)?.reply)
  const walSync = walSyncFor(db)
  return {
    claim(rows) {
      try {
        if (!walSync) return Promise.resolve(db.transaction(() => rows.map(claimOne))())
        const claims = commitWithoutSync(db, () => rows.map(claimOne))
        return new Promise((resolve, reject) => walSync(error => (error ? reject(error) : resolve(claims))))
      } catch (err) {
        return Promise.reject(err)
      }
    },
    async answerAll(rows) {
      commitWithoutSync(db, () => {
        for (const row of rows) answer.run(JSON.stringify(row.reply), row.eventId)
      })
      // Committed, so visible to a redelivery: the reply goes out now. It reaches the disk with this sync, or with
      // the next durable commit of anyone should this one fail.
      walSync?.(() => {})
    },
  }
}

/** Any SqlStore (PostgreSQL): one transaction per burst, durable at its commit. */
function storeCommits(sql: SqlStore): Commits {
  const claimOne = async (tx: SqlExecutor, row: ClaimRow): Promise<Claim> => {
    if ((await tx.run(insertSql, asParams(row))).changes === 1) return { state: 'claimed' }
    return taken((await tx.one<{ reply: string | null }>(replySql, [row.eventId]))?.reply)
  }
  return {
    claim: rows =>
      sql.transaction(async tx => {
        const order = rows.map((row, i) => ({ row, i })).sort((a, b) => (a.row.eventId < b.row.eventId ? -1 : a.row.eventId > b.row.eventId ? 1 : 0))
        const claims: Claim[] = new Array(rows.length)
        for (const { row, i } of order) claims[i] = await claimOne(tx, row)
        return claims
      }),
    answerAll: rows =>
      sql.transaction(async tx => {
        for (const row of rows) await tx.run(answerSql, [JSON.stringify(row.reply), row.eventId])
      }),
  }
}

export function processedRequests(store: ProcessedRequestsStore, memory: AnsweredMemory = {}): ProcessedRequests {
  const { sql } = store
  const commits = store.local ? localCommits(store.local) : storeCommits(sql)
  const repliedHere = new AgedSet<string>(repliedMemory, memory.forgetAfterMs ?? Infinity, memory.now)
  const waiting: { eventId: string; reply: StoredReply }[] = []
  let committing: Promise<void> | undefined
  return {
    claim: rows => commits.claim(rows),
    answer(eventId, stored) {
      if (stored.contents.length > 0) repliedHere.add(eventId)
      waiting.push({ eventId, reply: stored })
      return (committing ??= new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          committing = undefined
          commits.answerAll(waiting.splice(0)).then(resolve, reject)
        }),
      ))
    },
    answeredHere: eventId => repliedHere.has(eventId),
    answeredUnstored: eventId => void repliedHere.add(eventId),
    newestCreatedAt: async () => (await sql.one<{ newest: number | null }>(newestSql))?.newest ?? undefined,
    prune: async unixSeconds => (await sql.run(pruneSql, [unixSeconds])).changes,
  }
}
