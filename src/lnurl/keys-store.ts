// The LNURL room's rows: pay keys (persistent per wallet, app and address), single-use withdraw and channel keys,
// claimed Lightning address names and published zap receipts. Written once on the engine-neutral SqlStore
// (docs/postgres.md): the same statements run on SQLite and on PostgreSQL. A key is taken by one guarded UPDATE, so of
// any number of concurrent callbacks exactly one gets it; the two decisions that read other rows (one channel per user,
// one name per wallet) run as serializable transactions, retried on PostgreSQL when they collide.
import { bytesToHex } from '@noble/hashes/utils.js'
import { sqlErrorKind, type SqlStore } from '../store/index.js'

export interface PayKeyRow {
  k1: string
  user_id: string
  app_id: string
  identifier: string
  created_at: number
}

export interface WithdrawKeyRow {
  k1: string
  user_id: string
  max_msat: number
  created_at: number
  used_at: number | null
  payment_request: string | null
  outcome: 'pending' | 'paid' | 'in_flight' | 'refused' | null
}

export interface ChannelKeyRow {
  k1: string
  user_id: string
  created_at: number
  used_at: number | null
  remote_id: string | null
}

export type WithdrawOutcome = 'paid' | 'in_flight' | 'refused'

export interface LnurlKeysStore {
  /** The wallet's persistent pay key for this app and address (created on first use, then reused). */
  payKeyFor(userId: string, appId: string, identifier?: string): Promise<PayKeyRow>
  /** Pay lookups never consume the key. */
  payKey(k1: string): Promise<PayKeyRow | undefined>

  issueWithdrawKey(userId: string, maxMsat: number): Promise<string>
  withdrawKey(k1: string): Promise<WithdrawKeyRow | undefined>
  /** Takes the key for one payment attempt and records the invoice; of concurrent callers exactly one gets true. */
  claimWithdrawKey(k1: string, paymentRequest: string): Promise<boolean>
  settleWithdraw(k1: string, outcome: Exclude<WithdrawOutcome, 'refused'>): Promise<void>
  /** The payment was refused before any money moved: the link may be used again. */
  releaseWithdrawKey(k1: string): Promise<void>

  issueChannelKey(userId: string): Promise<string>
  channelKey(k1: string): Promise<ChannelKeyRow | undefined>
  /**
   * Takes the key for the channel it opens; false when it was taken, or when another key of the same user was
   * (one channel per user, ever) — of concurrent callers, with this key or another of the user's, one gets true.
   */
  claimChannelKey(k1: string, remoteId: string): Promise<boolean>
  channelOpenedFor(userId: string): Promise<boolean>
  /** The channel could not be opened: the key may be used again. */
  releaseChannelKey(k1: string): Promise<void>

  userForAddress(name: string): Promise<string | undefined>
  /** Gives the wallet this name in place of its old one; false (and nothing changed) when another wallet holds it. */
  claimAddress(name: string, userId: string): Promise<boolean>

  zapReceiptFor(paymentHash: string): Promise<string | undefined>
  recordZapReceipt(paymentHash: string, eventId: string): Promise<void>
}

export function lnurlKeysStore(sql: SqlStore, random: (bytes: number) => Uint8Array, now: () => number): LnurlKeysStore {
  // Upstream's k1: 31 random bytes as 62 hex characters.
  const newK1 = () => bytesToHex(random(31))
  const payKeyOf = (userId: string, appId: string, identifier: string) =>
    sql.one<PayKeyRow>('SELECT * FROM lnurl_pay_keys WHERE user_id = ? AND app_id = ? AND identifier = ?', [userId, appId, identifier])

  return {
    // Read first: strangers ask for pay info over and over, and a key once made is never written again.
    async payKeyFor(userId, appId, identifier = '') {
      const found = await payKeyOf(userId, appId, identifier)
      if (found) return found
      await sql.run(
        `INSERT INTO lnurl_pay_keys (k1, user_id, app_id, identifier, created_at)
         VALUES (@k1, @userId, @appId, @identifier, @createdAt) ON CONFLICT DO NOTHING`,
        { k1: newK1(), userId, appId, identifier, createdAt: now() },
      )
      // A concurrent first use may have stored its key instead: both callers get that one.
      return (await payKeyOf(userId, appId, identifier))!
    },
    payKey: k1 => sql.one<PayKeyRow>('SELECT * FROM lnurl_pay_keys WHERE k1 = ?', [k1]),

    async issueWithdrawKey(userId, maxMsat) {
      const k1 = newK1()
      await sql.run('INSERT INTO lnurl_withdraw_keys (k1, user_id, max_msat, created_at) VALUES (?, ?, ?, ?)', [k1, userId, maxMsat, now()])
      return k1
    },
    withdrawKey: k1 => sql.one<WithdrawKeyRow>('SELECT * FROM lnurl_withdraw_keys WHERE k1 = ?', [k1]),
    async claimWithdrawKey(k1, paymentRequest) {
      const { changes } = await sql.run(
        `UPDATE lnurl_withdraw_keys SET used_at = @usedAt, payment_request = @pr, outcome = 'pending'
         WHERE k1 = @k1 AND used_at IS NULL`,
        { k1, pr: paymentRequest, usedAt: now() },
      )
      return changes === 1
    },
    async settleWithdraw(k1, outcome) {
      await sql.run('UPDATE lnurl_withdraw_keys SET outcome = ? WHERE k1 = ?', [outcome, k1])
    },
    async releaseWithdrawKey(k1) {
      await sql.run(
        `UPDATE lnurl_withdraw_keys SET used_at = NULL, payment_request = NULL, outcome = 'refused' WHERE k1 = ?`,
        [k1],
      )
    },

    async issueChannelKey(userId) {
      const k1 = newK1()
      await sql.run('INSERT INTO lnurl_channel_keys (k1, user_id, created_at) VALUES (?, ?, ?)', [k1, userId, now()])
      return k1
    },
    channelKey: k1 => sql.one<ChannelKeyRow>('SELECT * FROM lnurl_channel_keys WHERE k1 = ?', [k1]),
    // The guard reads the user's other keys, so two claims of different keys could each miss the other's under
    // READ COMMITTED: serializable makes PostgreSQL refuse one of them (and the retry then sees the winner).
    claimChannelKey: (k1, remoteId) =>
      sql.transaction(
        async tx => {
          const { changes } = await tx.run(
            `UPDATE lnurl_channel_keys SET used_at = @usedAt, remote_id = @remoteId
             WHERE k1 = @k1 AND used_at IS NULL
               AND NOT EXISTS (SELECT 1 FROM lnurl_channel_keys taken
                               WHERE taken.user_id = lnurl_channel_keys.user_id AND taken.used_at IS NOT NULL)`,
            { k1, remoteId, usedAt: now() },
          )
          return changes === 1
        },
        { isolation: 'serializable', retries: 5 },
      ),
    async channelOpenedFor(userId) {
      return (await sql.one('SELECT 1 AS one FROM lnurl_channel_keys WHERE user_id = ? AND used_at IS NOT NULL', [userId])) !== undefined
    },
    async releaseChannelKey(k1) {
      await sql.run('UPDATE lnurl_channel_keys SET used_at = NULL, remote_id = NULL WHERE k1 = ?', [k1])
    },

    async userForAddress(name) {
      return (await sql.one<{ user_id: string }>('SELECT user_id FROM lightning_addresses WHERE name = ?', [name]))?.user_id
    },
    async claimAddress(name, userId) {
      try {
        return await sql.transaction(
          async tx => {
            const holder = await tx.one<{ user_id: string }>('SELECT user_id FROM lightning_addresses WHERE name = ?', [name])
            if (holder !== undefined && holder.user_id !== userId) return false
            await tx.run('DELETE FROM lightning_addresses WHERE user_id = ?', [userId])
            await tx.run('INSERT INTO lightning_addresses (name, user_id, created_at) VALUES (?, ?, ?)', [name, userId, now()])
            return true
          },
          { isolation: 'serializable', retries: 5 },
        )
      } catch (err) {
        // Two wallets inserting one free name at once: the loser's insert meets the winner's row.
        if (sqlErrorKind(err) === 'unique') return false
        throw err
      }
    },

    async zapReceiptFor(paymentHash) {
      return (await sql.one<{ event_id: string }>('SELECT event_id FROM zap_receipts WHERE payment_hash = ?', [paymentHash]))?.event_id
    },
    async recordZapReceipt(paymentHash, eventId) {
      await sql.run(
        'INSERT INTO zap_receipts (payment_hash, event_id, published_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        [paymentHash, eventId, now()],
      )
    },
  }
}
