// The wallets as the extensions see them (ExtensionWallets in extensions/host/): a summary, an invoice, a payment
// and the purge of an expired unpaid invoice, each through the wallet's own paths and ledger.
import type { Clock } from '../bus/index.js'
import type { ExtensionWallets } from '../extensions/host/index.js'
import type { Wallet } from '../wallet/index.js'

export function extensionWallets(wallet: Wallet, clock: Clock): ExtensionWallets {
  return {
    get: async id => {
      const user = await wallet.accounts.userById(id)
      return user && { id: user.id, accountId: user.account_id, name: user.name, balanceMsat: user.balance_msat }
    },
    createInvoice: (walletId, request) => wallet.createInvoiceFor(walletId, request),
    payInvoice: (walletId, paymentRequest) => wallet.payInvoiceFor(walletId, paymentRequest),
    forgetExpiredInvoice: (paymentHash, tag) => wallet.forgetExpiredInvoice(paymentHash, tag, clock.now()),
  }
}
