// Who pays service fees and who collects them: a managed user pays, its app's
// owner collects; an app owner pays nothing. A wallet with no app identity of its own (a second wallet of an
// account) counts as a managed user of the default app.
import type { SqlExecutor, SqlStore } from '../store/index.js'
import { BoundedMap } from '../limits/index.js'

export interface FeeCollectors {
  /** True when the wallet owns an application (its balance is the app's balance); read on `on` when given (a tx). */
  isAppOwner(userId: string, on?: SqlExecutor): Promise<boolean>
  /** The wallet that collects the fees `userId` pays; read on `on` when given (a tx). */
  collectorFor(userId: string, on?: SqlExecutor): Promise<string>
}

const texts = {
  owns: 'SELECT 1 AS found FROM apps WHERE owner_user_id = ?',
  ownerOfUsersApp: `SELECT a.owner_user_id FROM app_users au JOIN apps a ON a.id = au.app_id WHERE au.user_id = ?`,
}

export function feeCollectors(sql: SqlStore, defaultAppOwnerId: string): FeeCollectors {
  // Both answers are fixed for a wallet's life: an app's owner is a wallet made with the app, an app user's
  // wallet is made with the app user, and neither link is ever changed or removed. So they are remembered (two
  // queries saved per payment); a wallet not yet in the database is never asked about (payers exist), so even a
  // read inside a transaction that later rolls back gives the answer a committed read would.
  const owners = new BoundedMap<string, boolean>(memoCapacity)
  const collectors = new BoundedMap<string, string>(memoCapacity)
  const remember = <T>(memo: Map<string, T>, key: string, value: T): T => {
    memo.set(key, value)
    return value
  }
  return {
    isAppOwner: async (userId, on = sql) =>
      owners.get(userId) ?? remember(owners, userId, (await on.one(texts.owns, [userId])) !== undefined),
    collectorFor: async (userId, on = sql) =>
      collectors.get(userId) ??
      remember(collectors, userId, (await on.one<{ owner_user_id: string }>(texts.ownerOfUsersApp, [userId]))?.owner_user_id ?? defaultAppOwnerId),
  }
}

/** Wallets remembered per answer. */
const memoCapacity = 50_000
