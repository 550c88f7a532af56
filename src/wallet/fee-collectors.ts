// Who pays service fees and who collects them (reference/pub-protocol.md §7.3): a managed user pays, its app's
// owner collects; an app owner pays nothing. A wallet with no app identity of its own (a second wallet of an
// account) counts as a managed user of the default app.
import type { Db } from '../store/index.js'
import { BoundedMap } from '../bus/index.js'

export interface FeeCollectors {
  /** True when the wallet owns an application (its balance is the app's balance). */
  isAppOwner(userId: string): boolean
  /** The wallet that collects the fees `userId` pays. */
  collectorFor(userId: string): string
}

export function feeCollectors(db: Db, defaultAppOwnerId: string): FeeCollectors {
  const owns = db.prepare('SELECT 1 FROM apps WHERE owner_user_id = ?').pluck()
  const ownerOfUsersApp = db
    .prepare('SELECT a.owner_user_id FROM app_users au JOIN apps a ON a.id = au.app_id WHERE au.user_id = ?')
    .pluck()
  // Both answers are fixed for a wallet's life: an app's owner is a wallet made with the app, an app user's
  // wallet is made with the app user, and neither link is ever changed or removed. So they are remembered (two
  // queries saved per payment); a wallet not yet in the database is never asked about (payers exist).
  const owners = new BoundedMap<string, boolean>(memoCapacity)
  const collectors = new BoundedMap<string, string>(memoCapacity)
  const remember = <T>(memo: Map<string, T>, key: string, value: T): T => {
    memo.set(key, value)
    return value
  }
  return {
    isAppOwner: userId => owners.get(userId) ?? remember(owners, userId, owns.get(userId) !== undefined),
    collectorFor: userId =>
      collectors.get(userId) ??
      remember(collectors, userId, (ownerOfUsersApp.get(userId) as string | undefined) ?? defaultAppOwnerId),
  }
}

/** Wallets remembered per answer. */
const memoCapacity = 50_000
