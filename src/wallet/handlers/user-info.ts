// A user's view of their account: GetUserInfo, UserHealth, UpdateCallbackUrl.
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { SqlStore } from '../../store/index.js'
import { checkCallbackUrl } from '../../callbacks/index.js'
import { describeUser, type UserInfoDeps } from '../describe-user.js'

export interface UserInfoHandlerDeps extends UserInfoDeps {
  sql: SqlStore
  /** Undefined when the node serves; otherwise the reason (UserHealth reports it instead of failing). */
  nodeDowntimeReason(): Promise<string | undefined>
  allowLoopbackCallbacks: boolean
}

export function userInfoHandlers(deps: UserInfoHandlerDeps): HandlerTable {
  const appUserOf = async (identifier: string) => {
    const appUser = await deps.accounts.appUser(identifier)
    const user = appUser && (await deps.accounts.userById(appUser.user_id))
    if (!appUser || !user) throw new OperationError('not_found', 'user not found')
    return { appUser, user }
  }

  return {
    GetUserInfo: async (_input, ctx) => {
      const { appUser, user } = await appUserOf(ctx.caller.appUserId)
      return describeUser(user, appUser, deps)
    },
    // Never an ERROR envelope: the node's trouble is the answer (upstream).
    UserHealth: async () => ({ downtime_reason: (await deps.nodeDowntimeReason()) ?? '' }),
    UpdateCallbackUrl: async (input, ctx) => {
      const url = checkCallbackUrl(input.url, { allowLoopback: deps.allowLoopbackCallbacks }, 'url')
      const { appUser } = await appUserOf(ctx.caller.appUserId)
      await deps.sql.run('UPDATE app_users SET callback_url = ? WHERE identifier = ?', [url, appUser.identifier])
      deps.accounts.forgetAppUsers()
      return { url }
    },
  }
}
