// Swap rows (schema/sql/060_swaps.sql, 061). Every state change is one conditional UPDATE, so two callers racing
// on a swap (a payment and a resumed claim, two refund calls) see exactly one of them win. Written once on the
// engine-neutral SqlStore: the same statements run on SQLite and on PostgreSQL.
import type { SqlStore } from '../store/index.js'

export interface TxSwapRow {
  id: string
  user_id: string | null
  provider_url: string
  provider_swap_id: string
  status: 'quoted' | 'paying' | 'claimed' | 'failed'
  preimage: string
  payment_hash: string
  claim_private_key: string
  refund_public_key: string
  swap_tree: string
  lockup_address: string
  timeout_block_height: number
  invoice: string
  invoice_amount_sats: number
  transaction_amount_sats: number
  onchain_amount_sats: number
  swap_fee_sats: number
  chain_fee_sats: number
  service_fee_sats: number
  address: string | null
  payment_serial: number | null
  lockup_tx_id: string | null
  /** The provider's lockup as it reported it, checked to pay the swap address; the claim spends it. */
  lockup_tx_hex: string | null
  /** The node's height when the swap was paid: the lockup cannot be in an earlier block. */
  paid_height: number | null
  /** The block in which our own node saw the lockup confirmed; null while it has not. */
  lockup_confirmed_height: number | null
  claim_tx_id: string | null
  claim_tx_hex: string | null
  failure_reason: string | null
  created_at: number
  paid_at: number | null
  completed_at: number | null
}

export interface InvoiceSwapRow {
  id: string
  provider_url: string
  provider_swap_id: string
  status: 'quoted' | 'paid' | 'completed' | 'failed' | 'refunded'
  invoice: string
  payment_hash: string
  invoice_amount_sats: number
  refund_private_key: string
  claim_public_key: string
  swap_tree: string
  lockup_address: string
  expected_amount_sats: number
  swap_fee_sats: number
  chain_fee_sats: number
  sat_per_vbyte: number
  timeout_block_height: number
  lockup_tx_id: string | null
  paid_at: number | null
  completed_at: number | null
  failure_reason: string | null
  refund_address: string | null
  refund_tx_id: string | null
  refund_tx_hex: string | null
  refund_at: number | null
  created_at: number
}

export type NewTxSwap = Omit<
  TxSwapRow,
  | 'status'
  | 'address'
  | 'payment_serial'
  | 'lockup_tx_id'
  | 'lockup_tx_hex'
  | 'paid_height'
  | 'lockup_confirmed_height'
  | 'claim_tx_id'
  | 'claim_tx_hex'
  | 'failure_reason'
  | 'paid_at'
  | 'completed_at'
>

export type NewInvoiceSwap = Omit<
  InvoiceSwapRow,
  | 'status'
  | 'lockup_tx_id'
  | 'paid_at'
  | 'completed_at'
  | 'failure_reason'
  | 'refund_address'
  | 'refund_tx_id'
  | 'refund_tx_hex'
  | 'refund_at'
>

export interface SwapStore {
  /** Stores a new quote (status `quoted`) and returns the row as stored. */
  insertTxSwap(row: NewTxSwap): Promise<TxSwapRow>
  txSwap(id: string): Promise<TxSwapRow | undefined>
  /** A user's transaction swaps, or the operator's (`null`), oldest first. */
  txSwapsOf(userId: string | null): Promise<TxSwapRow[]>
  txSwapsInProgress(): Promise<TxSwapRow[]>
  /** quoted → paying; the row as it is now, or undefined when another call took it first. */
  startPaying(id: string, address: string, at: number, height: number): Promise<TxSwapRow | undefined>
  /** paying → quoted, when the payment was refused before anything was sent (the quote stays usable). */
  releaseTxSwap(id: string): Promise<void>
  setPaymentSerial(id: string, serial: number): Promise<void>
  /** Records the lockup to claim; false when it is the one recorded already (or the swap is past it). */
  setTxLockup(id: string, txid: string, hex: string): Promise<boolean>
  /** Our node saw `txid` confirmed at `height`; false when it is not the recorded lockup or was recorded already. */
  setLockupConfirmed(id: string, txid: string, height: number): Promise<boolean>
  /** Records the claim transaction once; false when one is recorded already (broadcast that one instead). */
  setClaimTx(id: string, txid: string, hex: string): Promise<boolean>
  finishTxSwap(id: string, at: number): Promise<boolean>
  /** Fails a swap not yet claimed; false when it was claimed or already final. */
  failTxSwap(id: string, reason: string, at: number): Promise<boolean>
  /** Removes quotes nobody paid that are past their timeout; how many. */
  deleteExpiredTxQuotes(height: number): Promise<number>

  insertInvoiceSwap(row: NewInvoiceSwap): Promise<InvoiceSwapRow>
  invoiceSwap(id: string): Promise<InvoiceSwapRow | undefined>
  invoiceSwaps(): Promise<InvoiceSwapRow[]>
  /** Paid or failed swaps not refunded yet. */
  invoiceSwapsInProgress(): Promise<InvoiceSwapRow[]>
  /** quoted → paid before the coins leave, so a second pay call cannot send them twice. */
  takeInvoiceSwapForPaying(id: string, at: number): Promise<boolean>
  /** The send was refused by the node: nothing left the wallet, the quote may be paid again. */
  releaseInvoiceSwap(id: string): Promise<void>
  setInvoiceLockup(id: string, txid: string, rate: number): Promise<void>
  finishInvoiceSwap(id: string, at: number): Promise<boolean>
  failInvoiceSwap(id: string, reason: string): Promise<boolean>
  /** Keeps the first refund address asked for. */
  setRefundAddress(id: string, address: string): Promise<void>
  /** Records the refund once; false when one is recorded already (a concurrent refund won). */
  setRefundTx(id: string, txid: string, hex: string, at: number): Promise<boolean>
  deleteExpiredInvoiceQuotes(height: number): Promise<number>
}

export function swapStore(sql: SqlStore): SwapStore {
  /** A row's column names come from the code's own row objects, never from a caller. */
  async function insertRow<T>(table: string, row: object): Promise<T> {
    const names = Object.keys(row)
    const inserted = await sql.one<T>(
      `INSERT INTO ${table} (${names.join(', ')}, status) VALUES (${names.map(n => '@' + n).join(', ')}, 'quoted') RETURNING *`,
      { ...row },
    )
    return inserted!
  }
  const changed = async (text: string, params: Record<string, unknown>) => (await sql.run(text, params)).changes === 1
  const count = async (text: string, params: Record<string, unknown>) => (await sql.run(text, params)).changes

  return {
    insertTxSwap: row => insertRow<TxSwapRow>('tx_swaps', row),
    txSwap: id => sql.one<TxSwapRow>('SELECT * FROM tx_swaps WHERE id = ?', [id]),
    txSwapsOf: userId =>
      userId === null
        ? sql.many<TxSwapRow>('SELECT * FROM tx_swaps WHERE user_id IS NULL ORDER BY created_at, id')
        : sql.many<TxSwapRow>('SELECT * FROM tx_swaps WHERE user_id = ? ORDER BY created_at, id', [userId]),
    txSwapsInProgress: () => sql.many<TxSwapRow>("SELECT * FROM tx_swaps WHERE status = 'paying' ORDER BY created_at, id"),
    startPaying: (id, address, at, height) =>
      sql.one<TxSwapRow>(
        `UPDATE tx_swaps SET status = 'paying', address = @address, paid_at = @at, paid_height = @height
         WHERE id = @id AND status = 'quoted' RETURNING *`,
        { id, address, at, height },
      ),
    async releaseTxSwap(id) {
      await sql.run(
        `UPDATE tx_swaps SET status = 'quoted', address = NULL, paid_at = NULL, paid_height = NULL
         WHERE id = @id AND status = 'paying' AND payment_serial IS NULL AND lockup_tx_id IS NULL`,
        { id },
      )
    },
    async setPaymentSerial(id, serial) {
      await sql.run('UPDATE tx_swaps SET payment_serial = @serial WHERE id = @id', { id, serial })
    },
    // The latest lockup the provider reports wins until a claim is built (a replaced lockup never confirms).
    setTxLockup: (id, txid, hex) =>
      changed(
        `UPDATE tx_swaps SET lockup_tx_id = @txid, lockup_tx_hex = @hex, lockup_confirmed_height = NULL
         WHERE id = @id AND status = 'paying' AND claim_tx_id IS NULL AND (lockup_tx_id IS NULL OR lockup_tx_id != @txid)`,
        { id, txid, hex },
      ),
    setLockupConfirmed: (id, txid, height) =>
      changed(
        `UPDATE tx_swaps SET lockup_confirmed_height = @height
         WHERE id = @id AND lockup_tx_id = @txid AND lockup_confirmed_height IS NULL`,
        { id, txid, height },
      ),
    setClaimTx: (id, txid, hex) =>
      changed('UPDATE tx_swaps SET claim_tx_id = @txid, claim_tx_hex = @hex WHERE id = @id AND claim_tx_id IS NULL', { id, txid, hex }),
    finishTxSwap: (id, at) =>
      changed(`UPDATE tx_swaps SET status = 'claimed', completed_at = @at WHERE id = @id AND status = 'paying'`, { id, at }),
    failTxSwap: (id, reason, at) =>
      changed(
        `UPDATE tx_swaps SET status = 'failed', failure_reason = @reason, completed_at = @at
         WHERE id = @id AND status IN ('quoted', 'paying') AND claim_tx_id IS NULL`,
        { id, reason, at },
      ),
    deleteExpiredTxQuotes: height =>
      count(`DELETE FROM tx_swaps WHERE status = 'quoted' AND timeout_block_height <= @height`, { height }),

    insertInvoiceSwap: row => insertRow<InvoiceSwapRow>('invoice_swaps', row),
    invoiceSwap: id => sql.one<InvoiceSwapRow>('SELECT * FROM invoice_swaps WHERE id = ?', [id]),
    invoiceSwaps: () => sql.many<InvoiceSwapRow>('SELECT * FROM invoice_swaps ORDER BY created_at, id'),
    invoiceSwapsInProgress: () =>
      sql.many<InvoiceSwapRow>(
        "SELECT * FROM invoice_swaps WHERE status IN ('paid', 'failed') AND refund_tx_id IS NULL ORDER BY created_at, id",
      ),
    takeInvoiceSwapForPaying: (id, at) =>
      changed(`UPDATE invoice_swaps SET status = 'paid', paid_at = @at WHERE id = @id AND status = 'quoted'`, { id, at }),
    async releaseInvoiceSwap(id) {
      await sql.run(
        `UPDATE invoice_swaps SET status = 'quoted', paid_at = NULL WHERE id = @id AND status = 'paid' AND lockup_tx_id IS NULL`,
        { id },
      )
    },
    async setInvoiceLockup(id, txid, rate) {
      await sql.run('UPDATE invoice_swaps SET lockup_tx_id = @txid, sat_per_vbyte = @rate WHERE id = @id', { id, txid, rate })
    },
    finishInvoiceSwap: (id, at) =>
      changed(`UPDATE invoice_swaps SET status = 'completed', completed_at = @at WHERE id = @id AND status = 'paid'`, { id, at }),
    failInvoiceSwap: (id, reason) =>
      changed(`UPDATE invoice_swaps SET status = 'failed', failure_reason = @reason WHERE id = @id AND status = 'paid'`, { id, reason }),
    async setRefundAddress(id, address) {
      await sql.run('UPDATE invoice_swaps SET refund_address = @address WHERE id = @id AND refund_address IS NULL', { id, address })
    },
    setRefundTx: (id, txid, hex, at) =>
      changed(
        `UPDATE invoice_swaps SET refund_tx_id = @txid, refund_tx_hex = @hex, refund_at = @at, status = 'refunded'
         WHERE id = @id AND refund_tx_id IS NULL`,
        { id, txid, hex, at },
      ),
    deleteExpiredInvoiceQuotes: height =>
      count(`DELETE FROM invoice_swaps WHERE status = 'quoted' AND timeout_block_height <= @height`, { height }),
  }
}
