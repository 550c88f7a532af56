// CLINK offer rows (schema/sql/050_clink_offers.sql): what a user sells over noffer strings. Deleted offers keep
// their row so a payer holding an old noffer hears "Expired Offer"; every read below skips them unless it says so.
// Written once on the engine-neutral SqlStore; on an executor, so that CLINK manage can read a grant and
// write an offer in one transaction.
import { bytesToHex } from '@noble/hashes/utils.js'
import type { SqlExecutor } from '../store/index.js'

export interface OfferRow {
  offer_id: string
  user_id: string
  label: string
  price_sats: number
  callback_url: string
  payer_data: string
  token: string
  reject_unauthorized: number
  blind: number
  management_pubkey: string | null
  created_at: number
  updated_at: number
  deleted_at: number | null
}

/** The fields a user (or a manager over CLINK) sets. */
export interface OfferFields {
  label: string
  priceSats: number
  callbackUrl: string
  payerData: string[]
  token?: string
  rejectUnauthorized?: boolean
  blind?: boolean
}

/** Upstream's default offer label. */
export const defaultOfferLabel = 'Default CLINK Offer'

export interface OfferStoreDeps {
  /** The store, or an open transaction's `tx`. */
  sql: SqlExecutor
  now(): number
  random(bytes: number): Uint8Array
}

export interface OfferStore {
  add(userId: string, fields: OfferFields, managementPubkey?: string | null): Promise<OfferRow>
  /** The default offer (id = the app user's identifier), created or revived. */
  ensureDefault(userId: string, identifier: string): Promise<OfferRow>
  /** Replaces the fields; token, rejectUnauthorized and blind only when given. False when there is no live offer. */
  update(offerId: string, fields: OfferFields): Promise<boolean>
  /** False when there is no live offer. */
  remove(offerId: string): Promise<boolean>
  /** Live or deleted. */
  byId(offerId: string): Promise<OfferRow | undefined>
  /** The user's live offers, oldest first. */
  ofUser(userId: string): Promise<OfferRow[]>
  /** The user's live offers that `pubkey` created over CLINK manage. */
  managedBy(userId: string, pubkey: string): Promise<OfferRow[]>
}

const insert = `INSERT INTO clink_offers
    (offer_id, user_id, label, price_sats, callback_url, payer_data, token, reject_unauthorized, blind,
     management_pubkey, created_at, updated_at)
    VALUES (@offerId, @userId, @label, @priceSats, @callbackUrl, @payerData, @token, @rejectUnauthorized, @blind,
            @managementPubkey, @at, @at)
    RETURNING *`
// The default offer comes back fresh after a delete: its id is the user's identifier and cannot be retired.
const ensureDefault = `INSERT INTO clink_offers (offer_id, user_id, label, price_sats, created_at, updated_at)
    VALUES (@offerId, @userId, @label, 0, @at, @at)
    ON CONFLICT (offer_id) DO UPDATE SET label = excluded.label, price_sats = 0, callback_url = '', payer_data = '[]',
      token = '', reject_unauthorized = 1, blind = 0, management_pubkey = NULL, created_at = excluded.created_at,
      updated_at = excluded.updated_at, deleted_at = NULL
    WHERE clink_offers.deleted_at IS NOT NULL AND clink_offers.user_id = excluded.user_id`
const update = `UPDATE clink_offers SET label = @label, price_sats = @priceSats, callback_url = @callbackUrl,
      payer_data = @payerData, token = COALESCE(@token, token),
      reject_unauthorized = COALESCE(@rejectUnauthorized, reject_unauthorized), blind = COALESCE(@blind, blind),
      updated_at = @at
    WHERE offer_id = @offerId AND deleted_at IS NULL`
const byId = 'SELECT * FROM clink_offers WHERE offer_id = ?'

export function offerStore({ sql, now, random }: OfferStoreDeps): OfferStore {
  const columns = (fields: OfferFields) => ({
    label: fields.label,
    priceSats: fields.priceSats,
    callbackUrl: fields.callbackUrl,
    payerData: JSON.stringify(fields.payerData),
  })

  return {
    add: async (userId, fields, managementPubkey = null) =>
      (await sql.one<OfferRow>(insert, {
        offerId: bytesToHex(random(34)),
        userId,
        ...columns(fields),
        token: fields.token ?? '',
        rejectUnauthorized: fields.rejectUnauthorized === false ? 0 : 1,
        blind: fields.blind ? 1 : 0,
        managementPubkey,
        at: now(),
      }))!,
    async ensureDefault(userId, identifier) {
      await sql.run(ensureDefault, { offerId: identifier, userId, label: defaultOfferLabel, at: now() })
      return (await sql.one<OfferRow>(byId, [identifier]))!
    },
    update: async (offerId, fields) =>
      (
        await sql.run(update, {
          offerId,
          ...columns(fields),
          token: fields.token ?? null,
          rejectUnauthorized: fields.rejectUnauthorized === undefined ? null : fields.rejectUnauthorized ? 1 : 0,
          blind: fields.blind === undefined ? null : fields.blind ? 1 : 0,
          at: now(),
        })
      ).changes === 1,
    remove: async offerId =>
      (await sql.run('UPDATE clink_offers SET deleted_at = ? WHERE offer_id = ? AND deleted_at IS NULL', [now(), offerId])).changes === 1,
    byId: offerId => sql.one<OfferRow>(byId, [offerId]),
    ofUser: userId => sql.many<OfferRow>('SELECT * FROM clink_offers WHERE user_id = ? AND deleted_at IS NULL ORDER BY created_at, offer_id', [userId]),
    managedBy: (userId, pubkey) =>
      sql.many<OfferRow>(
        `SELECT * FROM clink_offers WHERE user_id = ? AND management_pubkey = ? AND deleted_at IS NULL
         ORDER BY created_at, offer_id`,
        [userId, pubkey],
      ),
  }
}

export const payerDataOf = (row: OfferRow): string[] => JSON.parse(row.payer_data) as string[]
