// CLINK manage rows (schema/sql/052_clink_manage.sql): the keys a user allowed (or banned) to manage offers, and
// the one request per key that waits for the user's decision. Written once on the engine-neutral SqlStore;
// on an executor, so that a request can be decided (grant read, offer written) in one transaction.
import type { SqlExecutor } from '../store/index.js'

export interface GrantRow {
  serial: number
  user_id: string
  npub: string
  banned: number
  expires_at: number
  created_at: number
}

export interface ParkedRow {
  requester: string
  request_id: string
  app_id: string
  user_id: string
  body: string
  created_at: number
  parked_at: number
}

export interface ManageStore {
  /**
   * The user's decision about `npub`. `lock`: inside a transaction that acts on it, the row is held (FOR SHARE on
   * PostgreSQL) so that a ban or a reset waits until that transaction has ended.
   */
  grant(userId: string, npub: string, opts?: { lock: boolean }): Promise<GrantRow | undefined>
  /** Grants (or bans) the key, replacing an earlier decision; never expires. */
  upsertGrant(userId: string, npub: string, banned: boolean): Promise<GrantRow>
  removeGrant(userId: string, npub: string): Promise<boolean>
  grantsOf(userId: string): Promise<GrantRow[]>
  parked(requester: string): Promise<ParkedRow | undefined>
  allParked(): Promise<ParkedRow[]>
  /** Parks a request; false when one of this requester waits already (one per key). */
  park(row: { requester: string; requestId: string; appId: string; userId: string; body: unknown; createdAt: number }): Promise<boolean>
  /** Takes this parked request out; false when it is no longer parked (someone else took it). */
  unpark(requester: string, requestId: string): Promise<boolean>
}

const upsertGrant = `INSERT INTO clink_manage_grants (user_id, npub, banned, expires_at, created_at)
    VALUES (@userId, @npub, @banned, 0, @at)
    ON CONFLICT (user_id, npub) DO UPDATE SET banned = excluded.banned, expires_at = 0
    RETURNING *`
const park = `INSERT INTO clink_manage_parked (requester, request_id, app_id, user_id, body, created_at, parked_at)
    VALUES (@requester, @requestId, @appId, @userId, @body, @createdAt, @at)
    ON CONFLICT (requester) DO NOTHING`

/** `sql`: the store, or an open transaction's `tx`. */
export function manageStore(sql: SqlExecutor, now: () => number): ManageStore {
  // SQLite has no row locks and needs none: its transactions hold the one write lock from BEGIN.
  const forShare = sql.engine === 'postgres' ? ' FOR SHARE' : ''
  return {
    grant: (userId, npub, opts) =>
      sql.one<GrantRow>(`SELECT * FROM clink_manage_grants WHERE user_id = ? AND npub = ?${opts?.lock ? forShare : ''}`, [userId, npub]),
    upsertGrant: async (userId, npub, banned) => (await sql.one<GrantRow>(upsertGrant, { userId, npub, banned: banned ? 1 : 0, at: now() }))!,
    removeGrant: async (userId, npub) =>
      (await sql.run('DELETE FROM clink_manage_grants WHERE user_id = ? AND npub = ?', [userId, npub])).changes === 1,
    grantsOf: userId => sql.many<GrantRow>('SELECT * FROM clink_manage_grants WHERE user_id = ? ORDER BY serial', [userId]),
    parked: requester => sql.one<ParkedRow>('SELECT * FROM clink_manage_parked WHERE requester = ?', [requester]),
    allParked: () => sql.many<ParkedRow>('SELECT * FROM clink_manage_parked ORDER BY parked_at, requester'),
    park: async row => (await sql.run(park, { ...row, body: JSON.stringify(row.body), at: now() })).changes === 1,
    unpark: async (requester, requestId) =>
      (await sql.run('DELETE FROM clink_manage_parked WHERE requester = ? AND request_id = ?', [requester, requestId])).changes === 1,
  }
}
