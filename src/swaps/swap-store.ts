// Swap rows (schema/sql/060_swaps.sql). Every state change is one conditional UPDATE, so two callers racing on a
// swap (a payment and a resumed claim, two refund calls) see exactly one of them win.
import type { Db } from '../store/index.js'

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

const columns = (row: object) => Object.keys(row)

export function swapStore(db: Db) {
  const insertRow = (table: string, row: object) => {
    const names = columns(row)
    db.prepare(`INSERT INTO ${table} (${names.join(', ')}, status) VALUES (${names.map(n => '@' + n).join(', ')}, 'quoted')`).run(row)
  }
  const txById = db.prepare('SELECT * FROM tx_swaps WHERE id = ?')
  const txOfUser = db.prepare('SELECT * FROM tx_swaps WHERE user_id = ? ORDER BY created_at, id')
  const txOfAdmin = db.prepare('SELECT * FROM tx_swaps WHERE user_id IS NULL ORDER BY created_at, id')
  const txInProgress = db.prepare("SELECT * FROM tx_swaps WHERE status = 'paying'")
  const startPaying = db.prepare(`UPDATE tx_swaps SET status = 'paying', address = @address, paid_at = @at, paid_height = @height
      WHERE id = @id AND status = 'quoted'`)
  const releaseTx = db.prepare(`UPDATE tx_swaps SET status = 'quoted', address = NULL, paid_at = NULL, paid_height = NULL
      WHERE id = @id AND status = 'paying' AND payment_serial IS NULL AND lockup_tx_id IS NULL`)
  const setPaymentSerial = db.prepare('UPDATE tx_swaps SET payment_serial = @serial WHERE id = @id')
  // The latest lockup the provider reports wins until a claim is built (a replaced lockup never confirms).
  const setLockup = db.prepare(`UPDATE tx_swaps SET lockup_tx_id = @txid, lockup_tx_hex = @hex, lockup_confirmed_height = NULL
      WHERE id = @id AND status = 'paying' AND claim_tx_id IS NULL AND (lockup_tx_id IS NULL OR lockup_tx_id != @txid)`)
  const setLockupConfirmed = db.prepare(`UPDATE tx_swaps SET lockup_confirmed_height = @height
      WHERE id = @id AND lockup_tx_id = @txid AND lockup_confirmed_height IS NULL`)
  const setClaimTx = db.prepare(`UPDATE tx_swaps SET claim_tx_id = @txid, claim_tx_hex = @hex
      WHERE id = @id AND claim_tx_id IS NULL`)
  const finishTx = db.prepare(`UPDATE tx_swaps SET status = 'claimed', completed_at = @at
      WHERE id = @id AND status = 'paying'`)
  const failTx = db.prepare(`UPDATE tx_swaps SET status = 'failed', failure_reason = @reason, completed_at = @at
      WHERE id = @id AND status IN ('quoted', 'paying') AND claim_tx_id IS NULL`)
  const expiredTxQuotes = db.prepare(`DELETE FROM tx_swaps WHERE status = 'quoted' AND timeout_block_height <= ?`)

  const invById = db.prepare('SELECT * FROM invoice_swaps WHERE id = ?')
  const invAll = db.prepare('SELECT * FROM invoice_swaps ORDER BY created_at, id')
  const invInProgress = db.prepare("SELECT * FROM invoice_swaps WHERE status IN ('paid', 'failed') AND refund_tx_id IS NULL")
  const markInvPaid = db.prepare(`UPDATE invoice_swaps SET status = 'paid', lockup_tx_id = @txid, paid_at = @at, sat_per_vbyte = @rate
      WHERE id = @id AND status = 'quoted'`)
  const claimInvPay = db.prepare(`UPDATE invoice_swaps SET status = 'paid', paid_at = @at WHERE id = @id AND status = 'quoted'`)
  const setInvLockup = db.prepare('UPDATE invoice_swaps SET lockup_tx_id = @txid, sat_per_vbyte = @rate WHERE id = @id')
  const unclaimInvPay = db.prepare(`UPDATE invoice_swaps SET status = 'quoted', paid_at = NULL WHERE id = @id AND status = 'paid' AND lockup_tx_id IS NULL`)
  const finishInv = db.prepare(`UPDATE invoice_swaps SET status = 'completed', completed_at = @at
      WHERE id = @id AND status = 'paid'`)
  const failInv = db.prepare(`UPDATE invoice_swaps SET status = 'failed', failure_reason = @reason
      WHERE id = @id AND status = 'paid'`)
  const setRefundAddress = db.prepare('UPDATE invoice_swaps SET refund_address = @address WHERE id = @id AND refund_address IS NULL')
  const setRefundTx = db.prepare(`UPDATE invoice_swaps SET refund_tx_id = @txid, refund_tx_hex = @hex, refund_at = @at, status = 'refunded'
      WHERE id = @id AND refund_tx_id IS NULL`)
  const expiredInvQuotes = db.prepare(`DELETE FROM invoice_swaps WHERE status = 'quoted' AND timeout_block_height <= ?`)

  return {
    insertTxSwap: (row: NewTxSwap) => insertRow('tx_swaps', row),
    txSwap: (id: string) => txById.get(id) as TxSwapRow | undefined,
    txSwapsOf: (userId: string | null) => (userId === null ? txOfAdmin.all() : txOfUser.all(userId)) as TxSwapRow[],
    txSwapsInProgress: () => txInProgress.all() as TxSwapRow[],
    /** quoted → paying; false when another call took it first. */
    startPaying: (id: string, address: string, at: number, height: number) => startPaying.run({ id, address, at, height }).changes === 1,
    /** paying → quoted, when the payment was refused before anything was sent (the quote stays usable). */
    releaseTxSwap: (id: string) => void releaseTx.run({ id }),
    setPaymentSerial: (id: string, serial: number) => void setPaymentSerial.run({ id, serial }),
    /** Records the lockup to claim; false when it is the one recorded already (or the swap is past it). */
    setTxLockup: (id: string, txid: string, hex: string) => setLockup.run({ id, txid, hex }).changes === 1,
    /** Our node saw `txid` confirmed at `height`; false when it is not the recorded lockup or was recorded already. */
    setLockupConfirmed: (id: string, txid: string, height: number) => setLockupConfirmed.run({ id, txid, height }).changes === 1,
    /** Records the claim transaction once; false when one is recorded already (broadcast that one instead). */
    setClaimTx: (id: string, txid: string, hex: string) => setClaimTx.run({ id, txid, hex }).changes === 1,
    finishTxSwap: (id: string, at: number) => finishTx.run({ id, at }).changes === 1,
    /** Fails a swap not yet claimed; false when it was claimed or already final. */
    failTxSwap: (id: string, reason: string, at: number) => failTx.run({ id, reason, at }).changes === 1,
    deleteExpiredTxQuotes: (height: number) => expiredTxQuotes.run(height).changes,

    insertInvoiceSwap: (row: NewInvoiceSwap) => insertRow('invoice_swaps', row),
    invoiceSwap: (id: string) => invById.get(id) as InvoiceSwapRow | undefined,
    invoiceSwaps: () => invAll.all() as InvoiceSwapRow[],
    invoiceSwapsInProgress: () => invInProgress.all() as InvoiceSwapRow[],
    /** quoted → paid before the coins leave, so a second pay call cannot send them twice. */
    takeInvoiceSwapForPaying: (id: string, at: number) => claimInvPay.run({ id, at }).changes === 1,
    /** The send was refused by the node: nothing left the wallet, the quote may be paid again. */
    releaseInvoiceSwap: (id: string) => void unclaimInvPay.run({ id }),
    setInvoiceLockup: (id: string, txid: string, rate: number) => void setInvLockup.run({ id, txid, rate }),
    markInvoiceSwapPaid: (id: string, txid: string, rate: number, at: number) => markInvPaid.run({ id, txid, rate, at }).changes === 1,
    finishInvoiceSwap: (id: string, at: number) => finishInv.run({ id, at }).changes === 1,
    failInvoiceSwap: (id: string, reason: string) => failInv.run({ id, reason }).changes === 1,
    setRefundAddress: (id: string, address: string) => void setRefundAddress.run({ id, address }),
    setRefundTx: (id: string, txid: string, hex: string, at: number) => setRefundTx.run({ id, txid, hex, at }).changes === 1,
    deleteExpiredInvoiceQuotes: (height: number) => expiredInvQuotes.run(height).changes,
  }
}

export type SwapStore = ReturnType<typeof swapStore>
