// Wallets and their keys: the user operations and the LNbits-compatible host routes.
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { AccountStore, UserRow } from '../accounts.js'

export interface WalletHandlerDeps {
  accounts: AccountStore
  /** Extension ids the daemon hosts. */
  extensions: readonly string[]
}

export function walletHandlers({ accounts, extensions }: WalletHandlerDeps): HandlerTable {
  const keys = (user: UserRow) => ({ wallet_id: user.id, admin_key: user.admin_key, invoice_key: user.invoice_key })
  const wallet = async (id: string) => {
    const user = await accounts.userById(id)
    if (!user) throw new OperationError('not_found', 'Wallet not found.', { status: 404 })
    return user
  }
  const knownExtension = (id: string, status?: number) => {
    if (!extensions.includes(id)) {
      throw new OperationError('not_found', `Extension '${id}' does not exist.`, status ? { status } : {})
    }
  }
  const walletName = (name: string) => {
    const trimmed = name.trim()
    if (trimmed.length === 0 || trimmed.length > 100) throw new OperationError('invalid_input', 'name must be 1 to 100 characters')
    return trimmed
  }

  return {
    GetWalletKeys: async (_input, ctx) => keys(await wallet(ctx.caller.userId)),
    RotateWalletKeys: async (_input, ctx) => keys(await accounts.rotateKeys((await wallet(ctx.caller.userId)).id)),
    CreateWallet: async (input, ctx) => {
      const created = await accounts.addWallet((await wallet(ctx.caller.userId)).account_id, walletName(input.name))
      return { ...keys(created), name: created.name }
    },
    EnableExtension: async (input, ctx) => {
      knownExtension(input.extension)
      await accounts.setExtension((await wallet(ctx.caller.userId)).account_id, input.extension, true)
      return {}
    },
    DisableExtension: async (input, ctx) => {
      knownExtension(input.extension)
      await accounts.setExtension((await wallet(ctx.caller.userId)).account_id, input.extension, false)
      return {}
    },

    HostGetWallet: async (_input, ctx) => {
      const user = await wallet(ctx.caller.walletId)
      // Upstream shows the wallet id only to the admin key.
      return { ...(ctx.caller.keyType === 'admin' ? { id: user.id } : {}), name: user.name, balance: user.balance_msat }
    },
    HostCreateWallet: async (input, ctx) => {
      const created = await accounts.addWallet(ctx.caller.accountId, walletName(input.name))
      return {
        id: created.id,
        user: created.account_id,
        name: created.name,
        adminkey: created.admin_key,
        inkey: created.invoice_key,
        balance_msat: created.balance_msat,
      }
    },
    HostEnableExtension: async (input, ctx) => {
      knownExtension(input.ext_id, 404)
      await accounts.setExtension(ctx.caller.accountId, input.ext_id, true)
      return { success: true, message: `Extension '${input.ext_id}' enabled.` }
    },
    HostDisableExtension: async (input, ctx) => {
      knownExtension(input.ext_id, 404)
      await accounts.setExtension(ctx.caller.accountId, input.ext_id, false)
      return { success: true, message: `Extension '${input.ext_id}' disabled.` }
    },
  }
}
