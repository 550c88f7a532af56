// Wallet-host operations on a user's own account: the admin and invoice keys the
// extension routes accept, extra wallets in the same account, and per-account extension enablement.
import { message, text } from '../../../../schema/dsl.js'

/** A wallet's keys: the admin key spends and manages, the invoice key reads and receives. */
export const WalletKeys = message('WalletKeys', {
  wallet_id: text(),
  admin_key: text(),
  invoice_key: text(),
})

export const CreateWalletRequest = message('CreateWalletRequest', {
  name: text(),
})

/** A wallet added to the caller's account, with its own balance and keys. */
export const CreatedWallet = message('CreatedWallet', {
  wallet_id: text(),
  name: text(),
  admin_key: text(),
  invoice_key: text(),
})

/** The extension id to enable or disable for the caller's account (e.g. `restaurant`, `payroll`). */
export const ExtensionRequest = message('ExtensionRequest', {
  extension: text(),
})
