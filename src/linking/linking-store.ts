// The linking room's tables (schema/sql/005_nostr.sql): linking tokens, invites, messaging devices, device
// encryption keys and the enrolled admin key. Written once on the engine-neutral SqlStore: the same
// statements run on SQLite and on PostgreSQL. What two callers could race on (a token, an invite, the admin seat)
// is taken by one guarded statement, so exactly one of them gets it.
import type { SqlStore } from '../store/index.js'

export interface LinkingTokenRow {
  token: string
  app_user_identifier: string
  app_id: string
  expires_at: number
}

export interface InviteRow {
  token: string
  app_id: string
  sats: number | null
  used_by: string | null
  created_at: number
  used_at: number | null
}

export interface LinkingStore {
  /** The unexpired linking token of an app user, if any (expired ones are deleted on the way). */
  pendingToken(identifier: string, now: number): Promise<LinkingTokenRow | undefined>
  /** One token per app user: a new one replaces the old. */
  putToken(row: NewLinkingToken): Promise<void>
  /** Stores a token unless the user has an unexpired one; false then (a concurrent request won). */
  issueToken(row: NewLinkingToken, now: number): Promise<boolean>
  /**
   * Removes and returns an unexpired token of this app: of concurrent callers presenting the same token, exactly one
   * gets it. A token of another app is left alone (it is as unknown here as a made-up one).
   */
  takeToken(token: string, appId: string, now: number): Promise<LinkingTokenRow | undefined>
  /** Puts a taken token back when the link it was taken for failed; a newer token of the same user stays. */
  restoreToken(row: LinkingTokenRow): Promise<void>

  insertInvite(row: { token: string; appId: string; sats: number | null; createdAt: number }): Promise<void>
  invite(token: string): Promise<InviteRow | undefined>
  /** Every invite, the newest first (the operator's list). */
  invites(): Promise<InviteRow[]>
  /** Marks an unused invite of this app used by `pubkey`; false when it is unknown, of another app or used. */
  useInvite(token: string, appId: string, pubkey: string, now: number): Promise<boolean>
  /** Undoes `useInvite` when the account it was used for could not be opened. */
  releaseInvite(token: string, pubkey: string): Promise<void>

  putDevice(row: { identifier: string; deviceId: string; token: string; now: number }): Promise<void>
  putDeviceKey(deviceId: string, publicKey: string, now: number): Promise<void>

  adminPubkey(): Promise<string | undefined>
  /** Enrolls the first admin; false when one is enrolled already (a concurrent enrollment won). */
  enrollAdmin(pubkey: string, now: number): Promise<boolean>
}

export interface NewLinkingToken {
  token: string
  identifier: string
  appId: string
  expiresAt: number
}

const tokenColumns = 'token, app_user_identifier, app_id, expires_at'

export function linkingStore(sql: SqlStore): LinkingStore {
  return {
    async pendingToken(identifier, now) {
      await sql.run('DELETE FROM npub_linking_tokens WHERE expires_at <= ?', [now])
      return sql.one<LinkingTokenRow>(
        `SELECT ${tokenColumns} FROM npub_linking_tokens WHERE app_user_identifier = ? AND expires_at > ?`,
        [identifier, now],
      )
    },
    async putToken(row) {
      await sql.run(
        `INSERT INTO npub_linking_tokens (token, app_user_identifier, app_id, expires_at)
         VALUES (@token, @identifier, @appId, @expiresAt)
         ON CONFLICT (app_user_identifier) DO UPDATE
         SET token = excluded.token, app_id = excluded.app_id, expires_at = excluded.expires_at`,
        { ...row },
      )
    },
    async issueToken(row, now) {
      const { changes } = await sql.run(
        `INSERT INTO npub_linking_tokens (token, app_user_identifier, app_id, expires_at)
         VALUES (@token, @identifier, @appId, @expiresAt)
         ON CONFLICT (app_user_identifier) DO UPDATE
         SET token = excluded.token, app_id = excluded.app_id, expires_at = excluded.expires_at
         WHERE npub_linking_tokens.expires_at <= @now`,
        { ...row, now },
      )
      return changes === 1
    },
    takeToken: (token, appId, now) =>
      sql.one<LinkingTokenRow>(
        `DELETE FROM npub_linking_tokens WHERE token = ? AND app_id = ? AND expires_at > ? RETURNING ${tokenColumns}`,
        [token, appId, now],
      ),
    async restoreToken(row) {
      await sql.run(
        `INSERT INTO npub_linking_tokens (${tokenColumns}) VALUES (@token, @app_user_identifier, @app_id, @expires_at)
         ON CONFLICT DO NOTHING`,
        { ...row },
      )
    },

    async insertInvite(row) {
      await sql.run(
        `INSERT INTO invite_tokens (token, app_id, sats, created_at) VALUES (@token, @appId, @sats, @createdAt)`,
        row,
      )
    },
    invite: token =>
      sql.one<InviteRow>('SELECT token, app_id, sats, used_by, created_at, used_at FROM invite_tokens WHERE token = ?', [token]),
    invites: () =>
      sql.many<InviteRow>('SELECT token, app_id, sats, used_by, created_at, used_at FROM invite_tokens ORDER BY created_at DESC, token'),
    async useInvite(token, appId, pubkey, now) {
      const { changes } = await sql.run(
        'UPDATE invite_tokens SET used_by = ?, used_at = ? WHERE token = ? AND app_id = ? AND used_by IS NULL',
        [pubkey, now, token, appId],
      )
      return changes === 1
    },
    async releaseInvite(token, pubkey) {
      await sql.run('UPDATE invite_tokens SET used_by = NULL, used_at = NULL WHERE token = ? AND used_by = ?', [token, pubkey])
    },

    async putDevice(row) {
      await sql.run(
        `INSERT INTO messaging_devices (app_user_identifier, device_id, firebase_messaging_token, updated_at)
         VALUES (@identifier, @deviceId, @token, @now)
         ON CONFLICT (app_user_identifier, device_id) DO UPDATE
         SET firebase_messaging_token = excluded.firebase_messaging_token, updated_at = excluded.updated_at`,
        row,
      )
    },
    async putDeviceKey(deviceId, publicKey, now) {
      await sql.run(
        `INSERT INTO device_encryption_keys (device_id, public_key, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (device_id) DO UPDATE SET public_key = excluded.public_key, updated_at = excluded.updated_at`,
        [deviceId, publicKey, now],
      )
    },

    async adminPubkey() {
      const row = await sql.one<{ pubkey: string }>('SELECT pubkey FROM nostr_admin WHERE id = 1')
      return row?.pubkey
    },
    async enrollAdmin(pubkey, now) {
      const { changes } = await sql.run(
        'INSERT INTO nostr_admin (id, pubkey, enrolled_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING',
        [pubkey, now],
      )
      return changes === 1
    },
  }
}
