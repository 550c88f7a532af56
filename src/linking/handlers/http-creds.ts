// GetHttpCreds: the one way a relay-key user gets a user token for the HTTP API,
// and only where the operator allows the upgrade (`[http] allow_upgrade`, upstream ALLOW_HTTP_UPGRADE).
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { TokenSigner } from '../../auth/index.js'

export interface HttpCredsDeps {
  tokens: TokenSigner
  allowUpgrade: boolean
  /** The public base URL of the HTTP API (`[http] public_url`, else the address it listens on). */
  serviceUrl(): string
}

export function httpCredsHandlers({ tokens, allowUpgrade, serviceUrl }: HttpCredsDeps): HandlerTable {
  return {
    GetHttpCreds: async (_input, ctx) => {
      if (!allowUpgrade) throw new OperationError('forbidden', 'http upgrade is not allowed on this service: the operator allows it with [http] allow_upgrade = true')
      const { userId, appId, appUserId } = ctx.caller
      return { url: serviceUrl(), token: await tokens.userToken({ user_id: userId, app_id: appId, app_user_id: appUserId }) }
    },
  }
}
