// The extension_deliveries table (schema/sql/006_extension_deliveries.sql): which paid invoices each extension's
// listener has finished with, so that a delivery is repeated at the next start until it is recorded. Written
// once on the engine-neutral SqlStore: the same statements on SQLite and PostgreSQL.
import type { SqlStore } from '../../store/index.js'

export interface DeliveryStore {
  /** True once the extension's listener finished with the invoice. */
  delivered(extension: string, paymentHash: string): Promise<boolean>
  /** Records a finished delivery; recording one twice changes nothing. */
  markDelivered(extension: string, paymentHash: string, at: number): Promise<void>
}

export function deliveryStore(sql: SqlStore): DeliveryStore {
  return {
    async delivered(extension, paymentHash) {
      const row = await sql.one('SELECT 1 AS found FROM extension_deliveries WHERE extension = ? AND payment_hash = ?', [
        extension,
        paymentHash,
      ])
      return row !== undefined
    },
    async markDelivered(extension, paymentHash, at) {
      await sql.run(
        `INSERT INTO extension_deliveries (extension, payment_hash, delivered_at) VALUES (?, ?, ?)
         ON CONFLICT (extension, payment_hash) DO NOTHING`,
        [extension, paymentHash, at],
      )
    },
  }
}
