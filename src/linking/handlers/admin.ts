// EnrollAdminToken: the key that presents the token in admin.enroll becomes the operator over the relay.
import type { HandlerTable } from '../../bus/index.js'
import type { WalletAccounts } from '../../wallet/index.js'
import type { AdminEnrollment } from '../admin-enrollment.js'

export function adminHandlers({ enrollment, accounts }: { enrollment: AdminEnrollment; accounts: WalletAccounts }): HandlerTable {
  return {
    EnrollAdminToken: async (input, ctx) => {
      await enrollment.enroll((await accounts.appUser(ctx.caller.appUserId))?.nostr_public_key ?? null, input.admin_token)
      return {}
    },
  }
}
