// The NWC room's own tables (schema/sql/008_nwc.sql): connections and the budget spends of each. The requests taken
// (exactly-once) live in the relay transport's one claim store, with every other kind's. Written once on the
// engine-neutral SqlStore: the same statements run on SQLite and on PostgreSQL.
import type { SqlExecutor, SqlStore } from '../store/index.js'
import { NwcError } from './nip47-errors.js'

export type BudgetInterval = 'DAY' | 'WEEK' | 'MONTH'

/** The rolling window of each budget interval, as CLINK frequency rules count them (MONTH is 30 days). */
export const budgetWindowMs: Record<BudgetInterval, number> = {
  DAY: 86_400_000,
  WEEK: 7 * 86_400_000,
  MONTH: 30 * 86_400_000,
}

export interface ConnectionRow {
  id: string
  user_id: string
  name: string
  service_pubkey: string
  service_secret: string
  client_pubkey: string
  methods: string
  budget_msat: number | null
  budget_interval: BudgetInterval | null
  expires_at: number | null
  created_at: number
  revoked_at: number | null
  /** The wallet link (its id) whose secret made the connection on the wallet page; null when made otherwise. */
  wallet_link_id: string | null
  /** When the connection ended with that link (revoked or replaced): it is then left out of the wallet's list. */
  link_ended_at: number | null
}

/** A connection as it is made: not revoked, and named by a wallet link only when the wallet page made it. */
export type NewConnection = Omit<ConnectionRow, 'revoked_at' | 'wallet_link_id' | 'link_ended_at'> & { wallet_link_id?: string | null }

/** The fields of a connection its user may change; the keys, the owner and a revocation never change this way. */
export type ConnectionChange = Partial<Pick<ConnectionRow, 'name' | 'methods' | 'budget_msat' | 'budget_interval' | 'expires_at'>>

export type Updated = { status: 'updated'; row: ConnectionRow } | { status: 'not_found' } | { status: 'revoked' }

export type Reservation = { ok: true } | { ok: false; spentMsat: number; budgetMsat: number }

export interface Spend {
  /** The kind-23194 event id: one reservation per request. */
  requestId: string
  paymentHash: string
  amountMsat: number
  at: number
}

export interface NwcConnectionStore {
  /** Every connection, revoked ones too. */
  all(): Promise<ConnectionRow[]>
  insert(row: NewConnection): Promise<ConnectionRow>
  byId(id: string): Promise<ConnectionRow | undefined>
  /** A user's connections, newest first, but for those that ended with the wallet link that made them. */
  ofUser(userId: string): Promise<ConnectionRow[]>
  /**
   * Applies `change` to the user's connection as it is now, in one transaction with the row locked: two changes of
   * one connection never overwrite each other's fields, and a revocation committed first is seen (`revoked`, and
   * nothing written). Another user's connection is `not_found`.
   */
  update(id: string, userId: string, change: ConnectionChange): Promise<Updated>
  /** The revoked row; undefined when it was revoked already (or does not exist). */
  revoke(id: string, at: number): Promise<ConnectionRow | undefined>
  /** Ends every live connection the wallet link `walletLinkId` made, in one statement; the rows it ended. */
  endWithLink(walletLinkId: string, at: number): Promise<ConnectionRow[]>
  /**
   * Refuses (NIP-47 UNAUTHORIZED) unless the connection is live on `tx`: run in the transaction that debits the
   * wallet, with the row locked on PostgreSQL, so a revocation committed before the debit is seen and one that comes
   * after waits for it (src/wallet/spend-limit.ts).
   */
  assertLive(tx: SqlExecutor, connectionId: string, now: number): Promise<void>
  /** What a connection spent in its budget's current window (all time without a budget). */
  spentMsat(connection: Pick<ConnectionRow, 'id' | 'budget_interval'>, now: number): Promise<number>
  /**
   * Reserves `amountMsat` of the connection's budget for one request, or refuses when the window's reserved and
   * spent amounts plus this one would pass the budget. The budget is read from the connection row, locked, in the
   * transaction that sums and inserts: two requests of one connection can never both fit into the last of it.
   */
  reserve(connectionId: string, spend: Spend): Promise<Reservation>
  /** The wallet took the money: the spend becomes what actually left, fees included. */
  settleSpend(requestId: string, amountMsat: number): Promise<void>
  /** The wallet moved nothing: the reservation stops counting. */
  releaseSpend(requestId: string): Promise<void>
}

const columns = `id, user_id, name, service_pubkey, service_secret, client_pubkey, methods, budget_msat, budget_interval,
                 expires_at, created_at, revoked_at, wallet_link_id, link_ended_at`
const insertConnection = `INSERT INTO nwc_connections
    (id, user_id, name, service_pubkey, service_secret, client_pubkey, methods, budget_msat, budget_interval,
     expires_at, created_at, wallet_link_id)
    VALUES (@id, @user_id, @name, @service_pubkey, @service_secret, @client_pubkey, @methods, @budget_msat,
            @budget_interval, @expires_at, @created_at, @wallet_link_id)`
const updateConnection = `UPDATE nwc_connections SET name = @name, methods = @methods, budget_msat = @budget_msat,
    budget_interval = @budget_interval, expires_at = @expires_at WHERE id = @id`
// SUM of a BIGINT is NUMERIC on PostgreSQL (text to the driver): cast back, so it is a number on both engines.
const spentSince = `SELECT CAST(COALESCE(SUM(amount_msat), 0) AS BIGINT) AS spent FROM nwc_spends
    WHERE connection_id = ? AND status IN ('reserved', 'spent') AND created_at > ?`
const insertSpend = `INSERT INTO nwc_spends (connection_id, request_id, payment_hash, amount_msat, status, created_at)
    VALUES (@connectionId, @requestId, @paymentHash, @amountMsat, 'reserved', @at)`

/**
 * The row lock a read-then-write takes on PostgreSQL. SQLite has no row locks and needs none: its transactions
 * begin IMMEDIATE, holding the one write lock from the start.
 */
const forUpdate = (x: SqlExecutor) => (x.engine === 'postgres' ? ' FOR UPDATE' : '')

const windowStart = (interval: BudgetInterval | null, now: number) => (interval ? now - budgetWindowMs[interval] : -1)

async function spentOn(x: SqlExecutor, connectionId: string, interval: BudgetInterval | null, now: number): Promise<number> {
  const row = await x.one<{ spent: number }>(spentSince, [connectionId, windowStart(interval, now)])
  return row?.spent ?? 0
}

export function nwcConnectionStore(sql: SqlStore): NwcConnectionStore {
  return {
    all: () => sql.many<ConnectionRow>(`SELECT ${columns} FROM nwc_connections`),
    async insert(row) {
      const stored: ConnectionRow = { ...row, revoked_at: null, wallet_link_id: row.wallet_link_id ?? null, link_ended_at: null }
      await sql.run(insertConnection, { ...row, wallet_link_id: stored.wallet_link_id })
      return stored
    },
    byId: id => sql.one<ConnectionRow>(`SELECT ${columns} FROM nwc_connections WHERE id = ?`, [id]),
    ofUser: userId =>
      sql.many<ConnectionRow>(
        `SELECT ${columns} FROM nwc_connections WHERE user_id = ? AND link_ended_at IS NULL ORDER BY created_at DESC, id`,
        [userId],
      ),
    update: (id, userId, change) =>
      // A refusal commits rather than throws: rollbacks are kept for real errors.
      sql.transaction(async (tx): Promise<Updated> => {
        const current = await tx.one<ConnectionRow>(`SELECT ${columns} FROM nwc_connections WHERE id = ?${forUpdate(tx)}`, [id])
        if (!current || current.user_id !== userId) return { status: 'not_found' }
        if (current.revoked_at !== null) return { status: 'revoked' }
        const row: ConnectionRow = {
          ...current,
          name: change.name ?? current.name,
          methods: change.methods ?? current.methods,
          budget_msat: change.budget_msat !== undefined ? change.budget_msat : current.budget_msat,
          budget_interval: change.budget_interval !== undefined ? change.budget_interval : current.budget_interval,
          expires_at: change.expires_at !== undefined ? change.expires_at : current.expires_at,
        }
        await tx.run(updateConnection, {
          id,
          name: row.name,
          methods: row.methods,
          budget_msat: row.budget_msat,
          budget_interval: row.budget_interval,
          expires_at: row.expires_at,
        })
        return { status: 'updated', row }
      }),
    revoke: (id, at) =>
      sql.one<ConnectionRow>(
        `UPDATE nwc_connections SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING ${columns}`,
        [at, id],
      ),
    endWithLink: (walletLinkId, at) =>
      sql.many<ConnectionRow>(
        `UPDATE nwc_connections SET revoked_at = @at, link_ended_at = @at
         WHERE wallet_link_id = @walletLinkId AND revoked_at IS NULL RETURNING ${columns}`,
        { walletLinkId, at },
      ),
    async assertLive(tx, connectionId, now) {
      const row = await tx.one<Pick<ConnectionRow, 'revoked_at' | 'expires_at'>>(
        `SELECT revoked_at, expires_at FROM nwc_connections WHERE id = ?${forUpdate(tx)}`,
        [connectionId],
      )
      if (!row || row.revoked_at !== null) throw new NwcError('UNAUTHORIZED', 'the connection was revoked')
      if (row.expires_at !== null && row.expires_at <= now) throw new NwcError('UNAUTHORIZED', 'the connection expired')
    },
    spentMsat: (connection, now) => spentOn(sql, connection.id, connection.budget_interval, now),
    reserve: (connectionId, spend) =>
      sql.transaction(async tx => {
        const budget = await tx.one<Pick<ConnectionRow, 'budget_msat' | 'budget_interval'>>(
          `SELECT budget_msat, budget_interval FROM nwc_connections WHERE id = ?${forUpdate(tx)}`,
          [connectionId],
        )
        if (!budget) throw new Error(`no NWC connection ${connectionId}`)
        if (budget.budget_msat !== null) {
          const spent = await spentOn(tx, connectionId, budget.budget_interval, spend.at)
          if (spent + spend.amountMsat > budget.budget_msat) return { ok: false, spentMsat: spent, budgetMsat: budget.budget_msat }
        }
        await tx.run(insertSpend, { connectionId, ...spend })
        return { ok: true }
      }),
    settleSpend: async (requestId, amountMsat) =>
      void (await sql.run(
        `UPDATE nwc_spends SET status = 'spent', amount_msat = @amountMsat WHERE request_id = @requestId AND status = 'reserved'`,
        { requestId, amountMsat },
      )),
    releaseSpend: async requestId =>
      void (await sql.run(`UPDATE nwc_spends SET status = 'released' WHERE request_id = ? AND status = 'reserved'`, [requestId])),
  }
}
