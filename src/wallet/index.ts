// The wallet room: accounts, apps, app users and wallets. Its factory receives every dependency once.
import type { Db } from '../store/index.js'
import type { TokenSigner } from '../auth/index.js'
import type { HandlerTable } from '../bus/handler.js'
import { accountStore, type Random } from './accounts.js'
import { appHandlers } from './handlers/apps.js'
import { walletHandlers } from './handlers/wallets.js'
import { checkFeeSpread, type FeePolicy } from './fees.js'

export type { AccountStore, AppRow, UserRow, AppUserRow } from './accounts.js'
export type { FeePolicy } from './fees.js'

export interface WalletDeps {
  db: Db
  tokens: TokenSigner
  random: Random
  now(): number
  fees: FeePolicy
  relayUrl(): string
  bridgeUrl: string
  allowBalanceMigration: boolean
  extensions: readonly string[]
  defaultAppName: string
}

export function createWallet(deps: WalletDeps) {
  checkFeeSpread(deps.fees)
  const accounts = accountStore(deps)
  const defaultApp = accounts.ensureDefaultApp(deps.defaultAppName)
  const handlers: HandlerTable = {
    ...appHandlers({ ...deps, accounts }),
    ...walletHandlers({ accounts, extensions: deps.extensions }),
  }
  return { accounts, defaultApp, handlers, directory: accounts.directory() }
}

export type Wallet = ReturnType<typeof createWallet>
