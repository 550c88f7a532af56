// The LNURL room's rows: pay keys (persistent per wallet, app and address), single-use withdraw and channel keys,
// claimed Lightning address names and published zap receipts. Every function is one intent and one statement,
// except the withdraw claim, which must be atomic.
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Db } from '../store/index.js'

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

export function lnurlKeysStore(db: Db, random: (bytes: number) => Uint8Array, now: () => number) {
  // Upstream's k1: 31 random bytes as 62 hex characters.
  const newK1 = () => bytesToHex(random(31))
  const statements = {
    payKeyFor: db.prepare('SELECT * FROM lnurl_pay_keys WHERE user_id = ? AND app_id = ? AND identifier = ?'),
    insertPayKey: db.prepare(`INSERT INTO lnurl_pay_keys (k1, user_id, app_id, identifier, created_at)
                              VALUES (@k1, @userId, @appId, @identifier, @createdAt) ON CONFLICT DO NOTHING`),
    payKey: db.prepare('SELECT * FROM lnurl_pay_keys WHERE k1 = ?'),
    insertWithdrawKey: db.prepare(`INSERT INTO lnurl_withdraw_keys (k1, user_id, max_msat, created_at)
                                   VALUES (?, ?, ?, ?)`),
    withdrawKey: db.prepare('SELECT * FROM lnurl_withdraw_keys WHERE k1 = ?'),
    claimWithdrawKey: db.prepare(`UPDATE lnurl_withdraw_keys SET used_at = @usedAt, payment_request = @pr,
                                    outcome = 'pending'
                                  WHERE k1 = @k1 AND used_at IS NULL`),
    settleWithdraw: db.prepare('UPDATE lnurl_withdraw_keys SET outcome = ? WHERE k1 = ?'),
    releaseWithdrawKey: db.prepare(`UPDATE lnurl_withdraw_keys SET used_at = NULL, payment_request = NULL,
                                      outcome = 'refused'
                                    WHERE k1 = ?`),
    insertChannelKey: db.prepare('INSERT INTO lnurl_channel_keys (k1, user_id, created_at) VALUES (?, ?, ?)'),
    channelKey: db.prepare('SELECT * FROM lnurl_channel_keys WHERE k1 = ?'),
    claimChannelKey: db.prepare(`UPDATE lnurl_channel_keys SET used_at = ?, remote_id = ?
                                 WHERE k1 = ? AND used_at IS NULL`),
    channelOpenedFor: db.prepare('SELECT 1 FROM lnurl_channel_keys WHERE user_id = ? AND used_at IS NOT NULL').pluck(),
    releaseChannelKey: db.prepare('UPDATE lnurl_channel_keys SET used_at = NULL, remote_id = NULL WHERE k1 = ?'),
    addressByName: db.prepare('SELECT user_id FROM lightning_addresses WHERE name = ?').pluck(),
    addressOfUser: db.prepare('SELECT name FROM lightning_addresses WHERE user_id = ?').pluck(),
    dropAddressOfUser: db.prepare('DELETE FROM lightning_addresses WHERE user_id = ?'),
    insertAddress: db.prepare('INSERT INTO lightning_addresses (name, user_id, created_at) VALUES (?, ?, ?)'),
    // The app-user table belongs to the wallet room; upstream's pubkey addresses need this one read-only lookup.
    zapReceipt: db.prepare('SELECT event_id FROM zap_receipts WHERE payment_hash = ?').pluck(),
    insertZapReceipt: db.prepare(`INSERT INTO zap_receipts (payment_hash, event_id, published_at) VALUES (?, ?, ?)
                                  ON CONFLICT DO NOTHING`),
  }

  return {
    /** The wallet's persistent pay key for this app and address (created on first use, then reused). */
    payKeyFor(userId: string, appId: string, identifier = ''): PayKeyRow {
      statements.insertPayKey.run({ k1: newK1(), userId, appId, identifier, createdAt: now() })
      return statements.payKeyFor.get(userId, appId, identifier) as PayKeyRow
    },
    /** Pay lookups never consume the key. */
    payKey: (k1: string) => statements.payKey.get(k1) as PayKeyRow | undefined,

    issueWithdrawKey(userId: string, maxMsat: number): string {
      const k1 = newK1()
      statements.insertWithdrawKey.run(k1, userId, maxMsat, now())
      return k1
    },
    withdrawKey: (k1: string) => statements.withdrawKey.get(k1) as WithdrawKeyRow | undefined,
    /**
     * Takes the key for one payment attempt and records the invoice, in one statement inside one transaction:
     * of any number of concurrent callbacks exactly one gets true.
     */
    claimWithdrawKey: db.transaction(
      (k1: string, paymentRequest: string): boolean =>
        statements.claimWithdrawKey.run({ k1, pr: paymentRequest, usedAt: now() }).changes === 1,
    ),
    settleWithdraw(k1: string, outcome: Exclude<WithdrawOutcome, 'refused'>): void {
      statements.settleWithdraw.run(outcome, k1)
    },
    /** The payment was refused before any money moved: the link may be used again. */
    releaseWithdrawKey(k1: string): void {
      statements.releaseWithdrawKey.run(k1)
    },

    issueChannelKey(userId: string): string {
      const k1 = newK1()
      statements.insertChannelKey.run(k1, userId, now())
      return k1
    },
    channelKey: (k1: string) => statements.channelKey.get(k1) as ChannelKeyRow | undefined,
    claimChannelKey: (k1: string, remoteId: string): boolean =>
      statements.claimChannelKey.run(now(), remoteId, k1).changes === 1,
    channelOpenedFor: (userId: string) => statements.channelOpenedFor.get(userId) !== undefined,
    releaseChannelKey(k1: string): void {
      statements.releaseChannelKey.run(k1)
    },

    userForAddress: (name: string) => statements.addressByName.get(name) as string | undefined,
    addressOfUser: (userId: string) => statements.addressOfUser.get(userId) as string | undefined,
    /** Replaces the wallet's name; false when another wallet holds it. */
    claimAddress: db.transaction((name: string, userId: string): boolean => {
      const holder = statements.addressByName.get(name) as string | undefined
      if (holder !== undefined && holder !== userId) return false
      statements.dropAddressOfUser.run(userId)
      statements.insertAddress.run(name, userId, now())
      return true
    }),

    zapReceiptFor: (paymentHash: string) => statements.zapReceipt.get(paymentHash) as string | undefined,
    recordZapReceipt(paymentHash: string, eventId: string): void {
      statements.insertZapReceipt.run(paymentHash, eventId, now())
    },
  }
}

export type LnurlKeysStore = ReturnType<typeof lnurlKeysStore>
