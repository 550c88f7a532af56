// CLINK manage rows (schema/sql/052_clink_manage.sql): the keys a user allowed (or banned) to manage offers, and
// the one request per key that waits for the user's decision.
import type { Db } from '../store/index.js'

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

export function manageStore(db: Db, now: () => number) {
  const statements = {
    grant: db.prepare('SELECT * FROM clink_manage_grants WHERE user_id = ? AND npub = ?'),
    upsertGrant: db.prepare(`INSERT INTO clink_manage_grants (user_id, npub, banned, expires_at, created_at)
        VALUES (@userId, @npub, @banned, 0, @at)
        ON CONFLICT (user_id, npub) DO UPDATE SET banned = excluded.banned, expires_at = 0`),
    removeGrant: db.prepare('DELETE FROM clink_manage_grants WHERE user_id = ? AND npub = ?'),
    grantsOf: db.prepare('SELECT * FROM clink_manage_grants WHERE user_id = ? ORDER BY serial'),
    parked: db.prepare('SELECT * FROM clink_manage_parked WHERE requester = ?'),
    allParked: db.prepare('SELECT * FROM clink_manage_parked ORDER BY parked_at'),
    park: db.prepare(`INSERT INTO clink_manage_parked (requester, request_id, app_id, user_id, body, created_at, parked_at)
        VALUES (@requester, @requestId, @appId, @userId, @body, @createdAt, @at)`),
    unpark: db.prepare('DELETE FROM clink_manage_parked WHERE requester = ? AND request_id = ?'),
  }
  return {
    grant: (userId: string, npub: string) => statements.grant.get(userId, npub) as GrantRow | undefined,
    /** Grants (or bans) the key, replacing an earlier decision; never expires. */
    upsertGrant(userId: string, npub: string, banned: boolean): GrantRow {
      statements.upsertGrant.run({ userId, npub, banned: banned ? 1 : 0, at: now() })
      return statements.grant.get(userId, npub) as GrantRow
    },
    removeGrant: (userId: string, npub: string) => statements.removeGrant.run(userId, npub).changes === 1,
    grantsOf: (userId: string) => statements.grantsOf.all(userId) as GrantRow[],
    parked: (requester: string) => statements.parked.get(requester) as ParkedRow | undefined,
    allParked: () => statements.allParked.all() as ParkedRow[],
    park(row: { requester: string; requestId: string; appId: string; userId: string; body: unknown; createdAt: number }): void {
      statements.park.run({ ...row, body: JSON.stringify(row.body), at: now() })
    },
    /** Takes this parked request out; false when it is no longer parked (someone else took it). */
    unpark: (requester: string, requestId: string) => statements.unpark.run(requester, requestId).changes === 1,
  }
}

export type ManageStore = ReturnType<typeof manageStore>
