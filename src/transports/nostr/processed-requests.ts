// Exactly-once for request events (reference/pub-protocol.md §14: upstream's dedupe is in memory and lost at
// restart). A request is claimed in SQLite before its operation runs and its encrypted reply is stored after, so
// the same event delivered again — by a second relay, a resubscription or after a restart — runs nothing and is
// answered with the stored reply. Rows older than the accepted event age are pruned: such events are dropped as
// stale before they get here, so forgetting them cannot let one run twice.
//
// A busy relay delivers requests in bursts: the claims of one burst commit in one transaction, and so do the
// replies stored in one turn of the event loop. Under `[store] synchronous = "full"` neither commit has to stop
// the event loop in fsync: `claim` commits, then syncs the WAL on the thread pool (`walSyncFor`) and only then
// hands the claims back, so no request runs before its claim is on disk (a request whose effect lies outside the
// database, a channel opened on the node, must not run twice after a power loss); stored replies are committed
// (visible to a redelivery at once) and synced the same way right after.
import { commitWithoutSync, walSyncFor, type Db } from '../../store/index.js'
import { BoundedSet } from '../../bus/index.js'

/** A stored reply: its encrypted contents (one per shard; none when the request was dropped) and when it was sent. */
export interface StoredReply {
  /** created_at (unix s) of the last events that carried it; a re-send must be dated later to get a new event id. */
  sentAt: number
  contents: string[]
  /** A CLINK answer carried `["clink_version","1"]`: a re-send must carry it too. */
  clinkVersion?: boolean
}

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
  /** Claims requests in one transaction; one Claim per row, in order. Durable on return (the commit syncs). */
  claimAll(rows: readonly ClaimRow[]): Claim[]
  /** Like claimAll, but the event loop goes on while the claims are synced; resolves once they are on disk. */
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
  /** created_at (unix s) of the newest request taken, to resume the subscription after a restart. */
  newestCreatedAt(): number | undefined
  /** Forgets requests created before `unixSeconds`; returns how many. */
  prune(unixSeconds: number): number
}

/** Requests remembered as replied by this process: a minute of replies at several hundred per second. */
const repliedMemory = 50_000

export function processedRequests(db: Db): ProcessedRequests {
  const insert = db.prepare(`INSERT INTO nostr_requests (event_id, requester, app_pubkey, created_at, received_at)
                             VALUES (@eventId, @requester, @appPubkey, @createdAt, @receivedAt)
                             ON CONFLICT (event_id) DO NOTHING`)
  const reply = db.prepare('SELECT reply FROM nostr_requests WHERE event_id = ?').pluck()
  const answer = db.prepare('UPDATE nostr_requests SET reply = ? WHERE event_id = ?')
  const newest = db.prepare('SELECT MAX(created_at) FROM nostr_requests').pluck()
  const prune = db.prepare('DELETE FROM nostr_requests WHERE created_at < ?')
  const claimOne = (row: ClaimRow): Claim => {
    if (insert.run(row).changes === 1) return { state: 'claimed' }
    const stored = reply.get(row.eventId) as string | null
    return stored === null ? { state: 'interrupted' } : { state: 'answered', reply: JSON.parse(stored) as StoredReply }
  }
  const claimAll = db.transaction((rows: readonly ClaimRow[]) => rows.map(claimOne))
  const walSync = walSyncFor(db)
  const claim = (rows: readonly ClaimRow[]): Promise<Claim[]> => {
    if (!walSync) return Promise.resolve(claimAll(rows))
    const claims = commitWithoutSync(db, () => rows.map(claimOne))
    return new Promise((resolve, reject) => walSync(error => (error ? reject(error) : resolve(claims))))
  }
  const answerAll = (rows: { eventId: string; reply: StoredReply }[]) => {
    commitWithoutSync(db, () => {
      for (const row of rows) answer.run(JSON.stringify(row.reply), row.eventId)
    })
    // The reply went out before it was stored (as it always has); it reaches the disk with this sync, or with the
    // next durable commit of anyone should this one fail. A redelivery needs it visible only, which it is now.
    walSync?.(() => {})
  }
  const repliedHere = new BoundedSet<string>(repliedMemory)
  const waiting: { eventId: string; reply: StoredReply }[] = []
  let committing: Promise<void> | undefined
  return {
    claimAll,
    claim,
    answer(eventId, stored) {
      if (stored.contents.length > 0) repliedHere.add(eventId)
      waiting.push({ eventId, reply: stored })
      return (committing ??= new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          committing = undefined
          try {
            answerAll(waiting.splice(0))
            resolve()
          } catch (err) {
            reject(err)
          }
        }),
      ))
    },
    answeredHere: eventId => repliedHere.has(eventId),
    newestCreatedAt: () => (newest.get() as number | null) ?? undefined,
    prune: unixSeconds => prune.run(unixSeconds).changes,
  }
}
