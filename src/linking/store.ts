// The linking room's tables (schema/sql/005_nostr.sql): linking tokens, invites, messaging devices, device
// encryption keys and the enrolled admin key. Statements are prepared once; functions are named for intent.
import type { Db } from '../store/index.js'

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

export function linkingStore(db: Db) {
  const s = {
    dropExpiredTokens: db.prepare('DELETE FROM npub_linking_tokens WHERE expires_at <= ?'),
    tokenFor: db.prepare('SELECT * FROM npub_linking_tokens WHERE app_user_identifier = ? AND expires_at > ?'),
    tokenByValue: db.prepare('SELECT * FROM npub_linking_tokens WHERE token = ? AND expires_at > ?'),
    putToken: db.prepare(`INSERT INTO npub_linking_tokens (token, app_user_identifier, app_id, expires_at)
                          VALUES (@token, @identifier, @appId, @expiresAt)
                          ON CONFLICT (app_user_identifier) DO UPDATE
                          SET token = excluded.token, app_id = excluded.app_id, expires_at = excluded.expires_at`),
    deleteToken: db.prepare('DELETE FROM npub_linking_tokens WHERE token = ?'),
    insertInvite: db.prepare(`INSERT INTO invite_tokens (token, app_id, sats, created_at)
                              VALUES (@token, @appId, @sats, @createdAt)`),
    invite: db.prepare('SELECT * FROM invite_tokens WHERE token = ?'),
    useInvite: db.prepare('UPDATE invite_tokens SET used_by = ?, used_at = ? WHERE token = ? AND used_by IS NULL'),
    putDevice: db.prepare(`INSERT INTO messaging_devices (app_user_identifier, device_id, firebase_messaging_token, updated_at)
                           VALUES (@identifier, @deviceId, @token, @now)
                           ON CONFLICT (app_user_identifier, device_id) DO UPDATE
                           SET firebase_messaging_token = excluded.firebase_messaging_token, updated_at = excluded.updated_at`),
    putDeviceKey: db.prepare(`INSERT INTO device_encryption_keys (device_id, public_key, updated_at) VALUES (?, ?, ?)
                              ON CONFLICT (device_id) DO UPDATE SET public_key = excluded.public_key, updated_at = excluded.updated_at`),
    deviceKey: db.prepare('SELECT public_key FROM device_encryption_keys WHERE device_id = ?').pluck(),
    adminPubkey: db.prepare('SELECT pubkey FROM nostr_admin WHERE id = 1').pluck(),
    setAdmin: db.prepare(`INSERT INTO nostr_admin (id, pubkey, enrolled_at) VALUES (1, ?, ?)
                          ON CONFLICT (id) DO UPDATE SET pubkey = excluded.pubkey, enrolled_at = excluded.enrolled_at`),
  }
  return {
    /** The unexpired linking token of an app user, if any (expired ones are deleted on the way). */
    pendingToken(identifier: string, now: number): LinkingTokenRow | undefined {
      s.dropExpiredTokens.run(now)
      return s.tokenFor.get(identifier, now) as LinkingTokenRow | undefined
    },
    tokenByValue: (token: string, now: number) => s.tokenByValue.get(token, now) as LinkingTokenRow | undefined,
    /** One token per app user: a new one replaces the old. */
    putToken: (row: { token: string; identifier: string; appId: string; expiresAt: number }) => void s.putToken.run(row),
    deleteToken: (token: string) => void s.deleteToken.run(token),
    insertInvite: (row: { token: string; appId: string; sats: number | null; createdAt: number }) => void s.insertInvite.run(row),
    invite: (token: string) => s.invite.get(token) as InviteRow | undefined,
    /** Marks an invite used; false when it was already used (a concurrent use won). */
    useInvite: (token: string, pubkey: string, now: number) => s.useInvite.run(pubkey, now, token).changes === 1,
    putDevice: (row: { identifier: string; deviceId: string; token: string; now: number }) => void s.putDevice.run(row),
    putDeviceKey: (deviceId: string, publicKey: string, now: number) => void s.putDeviceKey.run(deviceId, publicKey, now),
    deviceKey: (deviceId: string) => s.deviceKey.get(deviceId) as string | undefined,
    adminPubkey: () => (s.adminPubkey.get() as string | undefined) ?? undefined,
    setAdmin: (pubkey: string, now: number) => void s.setAdmin.run(pubkey, now),
  }
}

export type LinkingStore = ReturnType<typeof linkingStore>
