// The connections as the relay transport and authentication see them, kept in memory: they ask synchronously, and on
// every event addressed to a service key, before its signature is checked (a query per stranger's event would hand
// strangers the database). Loaded once when the room is made; after that only the room's own writes change connections,
// and each goes to the database first and then here, one write at a time, so this copy follows the database in commit
// order. One daemon writes at a time (the active-daemon lock, docs/postgres.md): a standby makes the room, and so loads
// this copy, only once it has taken over.
import type { ConnectionChange, ConnectionRow, NewConnection, NwcConnectionStore, Updated } from './connection-store.js'

export interface ConnectionDirectory {
  byServicePubkey(servicePubkey: string): ConnectionRow | undefined
  /** Every connection, revoked ones too. */
  all(): ConnectionRow[]
  /** Connections of a wallet that are neither revoked nor expired at `now`: the ones notifications go to. */
  liveOfUser(userId: string, now: number): ConnectionRow[]
  insert(row: NewConnection): Promise<ConnectionRow>
  /** NwcConnectionStore.update, then the row as stored is known here too. */
  update(id: string, userId: string, change: ConnectionChange): Promise<Updated>
  /** False when it was already revoked. */
  revoke(id: string, at: number): Promise<boolean>
  /** NwcConnectionStore.endWithLink: every live connection the wallet link made ends; the rows it ended. */
  endWithLink(walletLinkId: string, at: number): Promise<ConnectionRow[]>
}

export async function loadConnectionDirectory(store: NwcConnectionStore): Promise<ConnectionDirectory> {
  const byKey = new Map<string, ConnectionRow>()
  const byUser = new Map<string, Set<string>>()
  const put = (row: ConnectionRow) => {
    byKey.set(row.service_pubkey, row)
    let keys = byUser.get(row.user_id)
    if (!keys) byUser.set(row.user_id, (keys = new Set()))
    keys.add(row.service_pubkey)
  }
  for (const row of await store.all()) put(row)

  // Writes one after another: two changes of one connection reach the copy in the order they committed.
  let last: Promise<unknown> = Promise.resolve()
  const inTurn = <T>(write: () => Promise<T>): Promise<T> => {
    const run = last.then(write)
    last = run.catch(() => {})
    return run
  }

  return {
    byServicePubkey: key => byKey.get(key),
    all: () => [...byKey.values()],
    liveOfUser(userId, now) {
      const keys = byUser.get(userId)
      if (!keys) return []
      return [...keys]
        .map(key => byKey.get(key)!)
        .filter(c => c.revoked_at === null && (c.expires_at === null || c.expires_at > now))
    },
    insert: row =>
      inTurn(async () => {
        const stored = await store.insert(row)
        put(stored)
        return stored
      }),
    update: (id, userId, change) =>
      inTurn(async () => {
        const updated = await store.update(id, userId, change)
        if (updated.status === 'updated') put(updated.row)
        return updated
      }),
    revoke: (id, at) =>
      inTurn(async () => {
        const stored = await store.revoke(id, at)
        if (stored) put(stored)
        return stored !== undefined
      }),
    endWithLink: (walletLinkId, at) =>
      inTurn(async () => {
        const ended = await store.endWithLink(walletLinkId, at)
        for (const row of ended) put(row)
        return ended
      }),
  }
}
