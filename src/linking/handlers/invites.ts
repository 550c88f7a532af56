// One-time invites: the operator creates a token in its app (and lists them all), shares it out
// of band, and the invitee's key presents it to the same app pubkey to get an account there, even in an app that
// does not let clients open accounts on their own.
import { bytesToHex } from '@noble/hashes/utils.js'
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { NostrAccounts } from '../../wallet/index.js'
import type { LinkingStore } from '../linking-store.js'
import { unixSeconds } from '../../units/index.js'

const inviteTokenBytes = 32

export interface InviteDeps {
  store: LinkingStore
  nostr: NostrAccounts
  /** The app invites go to when the admin key has no app user of its own (the HTTP admin). */
  defaultAppId: string
  random(bytes: number): Uint8Array
}

export function inviteHandlers({ store, nostr, defaultAppId, random }: InviteDeps): HandlerTable {
  // A token opens at most one account: it is marked used first, by one guarded UPDATE that exactly one of
  // concurrent redeemers wins, and only then is the account opened (in the wallet's own tables and transaction).
  // An account that cannot be opened (the key has one already) gives the token back. A crash between the two
  // leaves the token used without an account: refused rather than opening two.
  const redeem = async (token: string, appId: string, pubkey: string, now: number) => {
    if (!(await store.useInvite(token, appId, pubkey, now))) {
      const invite = await store.invite(token)
      if (!invite || invite.app_id !== appId) throw new OperationError('not_found', 'invalid invite token')
      throw new OperationError('conflict', 'invite token already used')
    }
    try {
      await nostr.createForPubkey(appId, pubkey)
    } catch (err) {
      await store.releaseInvite(token, pubkey)
      throw err
    }
  }

  return {
    CreateOneTimeInviteLink: async (input, ctx) => {
      // Upstream needs an app user whose key is the admin's and fails over HTTP; we fall back to the default app.
      const appId = (await nostr.appUserByPubkey(ctx.caller.adminId))?.app_id ?? defaultAppId
      const token = bytesToHex(random(inviteTokenBytes))
      await store.insertInvite({ token, appId, sats: input.sats ?? null, createdAt: ctx.clock.now() })
      return { invitation_link: token }
    },
    GetInviteLinkState: async input => {
      const invite = await store.invite(input.invite_token.trim())
      if (!invite) throw new OperationError('not_found', 'invite token not found')
      return { used: invite.used_by !== null }
    },
    // The operator's list, so an invite made elsewhere (another session, over Nostr) can be found and checked.
    OperatorListInvites: async () => ({
      invites: (await store.invites()).map(invite => ({
        invite_token: invite.token,
        app_id: invite.app_id,
        ...(invite.sats === null ? {} : { sats: invite.sats }),
        used: invite.used_by !== null,
        used_by: invite.used_by ?? '',
        created_at: unixSeconds(invite.created_at),
        used_at: invite.used_at === null ? 0 : unixSeconds(invite.used_at),
      })),
    }),
    UseInviteLink: async (input, ctx) => {
      await redeem(input.invite_token.trim(), ctx.caller.appId, ctx.caller.pub, ctx.clock.now())
      return {}
    },
  }
}
