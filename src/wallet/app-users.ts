// App users as an application addresses them: by identifier, inside its own app.
import { OperationError } from '../bus/index.js'
import { sqlErrorKind } from '../store/index.js'
import type { AccountStore, AppUserRow } from './accounts.js'

/** The app user `identifier` of app `appId`; not_found when it does not exist or belongs to another app. */
export async function appUserOf(accounts: AccountStore, appId: string, identifier: string): Promise<AppUserRow> {
  const appUser = await accounts.appUser(identifier)
  if (!appUser || appUser.app_id !== appId) throw new OperationError('not_found', 'user not found')
  return appUser
}

/**
 * The app user `identifier` of app `appId`, created when missing (upstream get-or-create for payers and transfer
 * receivers). Identifiers are global, so one taken by another app is a conflict.
 */
export async function appUserOrCreate(accounts: AccountStore, appId: string, identifier: string): Promise<AppUserRow> {
  const name = identifier.trim()
  if (name.length === 0 || name.length > 256) {
    throw new OperationError('invalid_input', 'identifier must be 1 to 256 characters')
  }
  const taken = (existing: AppUserRow) => {
    if (existing.app_id !== appId) throw new OperationError('conflict', 'identifier is taken by another app')
    return existing
  }
  const existing = await accounts.appUser(name)
  if (existing) return taken(existing)
  // A call that created the same identifier meanwhile wins: this one's insert is refused (unique) and rolls back.
  return accounts.createAppUser(appId, name).catch(async (err: unknown) => {
    const winner = sqlErrorKind(err) === 'unique' ? await accounts.appUser(name) : undefined
    if (!winner) throw err
    return taken(winner)
  })
}
