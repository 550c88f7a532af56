// The NWC room's own tables (schema/sql/008_nwc.sql): connections and the budget spends of each. The requests taken
// (exactly-once) live in the relay transport's one claim store since issue 23. Statements are prepared once; every
// function is named for what it means to the room.
import type { Db } from '../store/index.js'

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
}

export type Reservation = { ok: true } | { ok: false; spentMsat: number; budgetMsat: number }

export function nwcStore(db: Db) {
  const insertConnection = db.prepare(`INSERT INTO nwc_connections
      (id, user_id, name, service_pubkey, service_secret, client_pubkey, methods, budget_msat, budget_interval,
       expires_at, created_at)
      VALUES (@id, @user_id, @name, @service_pubkey, @service_secret, @client_pubkey, @methods, @budget_msat,
              @budget_interval, @expires_at, @created_at)`)
  const byId = db.prepare('SELECT * FROM nwc_connections WHERE id = ?')
  const byServicePubkey = db.prepare('SELECT * FROM nwc_connections WHERE service_pubkey = ?')
  const ofUser = db.prepare('SELECT * FROM nwc_connections WHERE user_id = ? ORDER BY created_at DESC, id')
  const liveOfUser = db.prepare(`SELECT * FROM nwc_connections WHERE user_id = @userId AND revoked_at IS NULL
                                 AND (expires_at IS NULL OR expires_at > @now)`)
  const all = db.prepare('SELECT * FROM nwc_connections')
  const update = db.prepare(`UPDATE nwc_connections SET name = @name, methods = @methods, budget_msat = @budget_msat,
                             budget_interval = @budget_interval, expires_at = @expires_at WHERE id = @id`)
  const revoke = db.prepare('UPDATE nwc_connections SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')

  const spentSince = db.prepare(`SELECT COALESCE(SUM(amount_msat), 0) FROM nwc_spends
                                 WHERE connection_id = ? AND status IN ('reserved', 'spent') AND created_at > ?`).pluck()
  const insertSpend = db.prepare(`INSERT INTO nwc_spends (connection_id, request_id, payment_hash, amount_msat, status, created_at)
                                  VALUES (@connectionId, @requestId, @paymentHash, @amountMsat, 'reserved', @at)`)
  const settleSpend = db.prepare(`UPDATE nwc_spends SET status = 'spent', amount_msat = @amountMsat
                                  WHERE request_id = @requestId AND status = 'reserved'`)
  const releaseSpend = db.prepare(`UPDATE nwc_spends SET status = 'released' WHERE request_id = ? AND status = 'reserved'`)

  /** What a connection spent in its budget's current window (all time without a budget). */
  const spentMsat = (connection: ConnectionRow, now: number): number =>
    spentSince.get(connection.id, connection.budget_interval ? now - budgetWindowMs[connection.budget_interval] : -1) as number

  // Wallets with an unrevoked connection, so that a payment of a wallet without one (most of them) costs no query
  // here: every paid invoice and sent payment asks. Read once, then `insert` (the only way a connection is made)
  // adds. A wallet stays in after its last connection is revoked or expires; `liveOfUser` then finds none.
  let wallets: Set<string> | undefined
  const walletsWithConnections = () =>
    (wallets ??= new Set(db.prepare('SELECT DISTINCT user_id FROM nwc_connections WHERE revoked_at IS NULL').pluck().all() as string[]))

  return {
    insert: (row: Omit<ConnectionRow, 'revoked_at'>): void => {
      insertConnection.run(row)
      walletsWithConnections().add(row.user_id)
    },
    byId: (id: string) => byId.get(id) as ConnectionRow | undefined,
    byServicePubkey: (pubkey: string) => byServicePubkey.get(pubkey) as ConnectionRow | undefined,
    ofUser: (userId: string) => ofUser.all(userId) as ConnectionRow[],
    /** Connections of a wallet that are neither revoked nor expired at `now`: the ones notifications go to. */
    liveOfUser: (userId: string, now: number) =>
      walletsWithConnections().has(userId) ? (liveOfUser.all({ userId, now }) as ConnectionRow[]) : [],
    all: () => all.all() as ConnectionRow[],
    update: (row: ConnectionRow): void => void update.run(row),
    /** False when it was already revoked. */
    revoke: (id: string, at: number): boolean => revoke.run(at, id).changes === 1,
    spentMsat,

    /**
     * Reserves `amountMsat` of the connection's budget for one request, or refuses when the window's reserved and
     * spent amounts plus this one would pass the budget. The sum and the insert share one transaction, so two
     * requests of one connection can never both fit into the last of its budget.
     */
    reserve: db.transaction(
      (connection: ConnectionRow, spend: { requestId: string; paymentHash: string; amountMsat: number; at: number }): Reservation => {
        const spent = spentMsat(connection, spend.at)
        if (connection.budget_msat !== null && spent + spend.amountMsat > connection.budget_msat) {
          return { ok: false, spentMsat: spent, budgetMsat: connection.budget_msat }
        }
        insertSpend.run({ connectionId: connection.id, ...spend })
        return { ok: true }
      },
    ),
    /** The wallet took the money: the spend becomes what actually left, fees included. */
    settleSpend: (requestId: string, amountMsat: number): void => void settleSpend.run({ requestId, amountMsat }),
    /** The wallet moved nothing: the reservation stops counting. */
    releaseSpend: (requestId: string): void => void releaseSpend.run(requestId),
  }
}

export type NwcStore = ReturnType<typeof nwcStore>
