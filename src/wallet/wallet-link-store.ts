// Wallet links: the secret in a wallet page link (/wallet/#<secret>) that stands for one app user, as a user token
// does, until the operator revokes it or hands out a new one. A secret is `wl_<id>_<verifier>`: the id finds the
// row, and only the SHA-256 of the verifier is stored, compared in constant time, so the table alone opens no wallet.
import { createHash } from 'node:crypto'
import { bytesToHex } from '@noble/hashes/utils.js'
import { sameSecret } from '../auth/index.js'
import type { SqlStore } from '../store/index.js'
import type { Random } from './accounts.js'

/** `wl_` + 16 hex (the row's id) + `_` + 64 hex (the verifier): what the auth room tells from a user token. */
const secretPattern = /^wl_([0-9a-f]{16})_([0-9a-f]{64})$/

export interface WalletLinkUser {
  /** The link's id: the public half of its secret. */
  id: string
  user_id: string
  app_id: string
  identifier: string
}

const texts = {
  drop: 'DELETE FROM wallet_links WHERE user_id = ? RETURNING id',
  insert: 'INSERT INTO wallet_links (id, user_id, verifier_hash, created_at) VALUES (@id, @userId, @verifierHash, @createdAt)',
  byId: `SELECT l.id, l.verifier_hash, a.user_id, a.app_id, a.identifier FROM wallet_links l
         JOIN app_users a ON a.user_id = l.user_id WHERE l.id = ?`,
  exists: 'SELECT id FROM wallet_links WHERE id = ?',
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

export function walletLinkStore({ sql, random, now }: { sql: SqlStore; random: Random; now(): number }) {
  return {
    /**
     * A new link for the wallet `userId`; the link it had before stops working in the same transaction (`replaced`:
     * its id, for the connections it made).
     */
    issue: (userId: string): Promise<{ id: string; secret: string; createdAt: number; replaced: string | undefined }> =>
      sql.transaction(async tx => {
        const id = bytesToHex(random(8))
        const verifier = bytesToHex(random(32))
        const createdAt = now()
        const replaced = await tx.one<{ id: string }>(texts.drop, [userId])
        await tx.run(texts.insert, { id, userId, verifierHash: sha256Hex(verifier), createdAt })
        return { id, secret: `wl_${id}_${verifier}`, createdAt, replaced: replaced?.id }
      }),
    /** Revokes the wallet's link: the id of the link revoked, undefined when it had none. */
    revoke: async (userId: string): Promise<string | undefined> => (await sql.one<{ id: string }>(texts.drop, [userId]))?.id,
    /** Whether the link with this id still opens its wallet (not revoked, not replaced). */
    live: async (id: string): Promise<boolean> => (await sql.one(texts.exists, [id])) !== undefined,
    /** The app user a secret stands for; undefined for a malformed, wrong or revoked one (never which of them). */
    async userFor(secret: string): Promise<WalletLinkUser | undefined> {
      const parts = secretPattern.exec(secret)
      if (!parts) return undefined
      const row = await sql.one<WalletLinkUser & { verifier_hash: string }>(texts.byId, [parts[1]])
      if (!row || !sameSecret(sha256Hex(parts[2]!), row.verifier_hash)) return undefined
      return { id: row.id, user_id: row.user_id, app_id: row.app_id, identifier: row.identifier }
    },
  }
}

export type WalletLinkStore = ReturnType<typeof walletLinkStore>
