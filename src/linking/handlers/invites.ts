// One-time invites (reference/pub-protocol.md §1.3, §3.10): the operator creates a token in its app, shares it out
// of band, and the invitee's key presents it to the same app pubkey to get an account there, even in an app that
// does not let clients open accounts on their own.
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Db } from '../../store/index.js'
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { NostrAccounts } from '../../wallet/index.js'
import type { LinkingStore } from '../store.js'

const inviteTokenBytes = 32

export interface InviteDeps {
  db: Db
  store: LinkingStore
  nostr: NostrAccounts
  /** The app invites go to when the admin key has no app user of its own (the HTTP admin). */
  defaultAppId: string
  random(bytes: number): Uint8Array
}

export function inviteHandlers({ db, store, nostr, defaultAppId, random }: InviteDeps): HandlerTable {
  // The account and the used mark commit together: a token opens exactly one account.
  const redeem = db.transaction((token: string, appId: string, pubkey: string, now: number) => {
    const invite = store.invite(token)
    if (!invite || invite.app_id !== appId) throw new OperationError('not_found', 'invalid invite token')
    if (invite.used_by !== null) throw new OperationError('conflict', 'invite token already used')
    nostr.createForPubkey(appId, pubkey)
    store.useInvite(token, pubkey, now)
  })

  return {
    CreateOneTimeInviteLink: async (input, ctx) => {
      // Upstream needs an app user whose key is the admin's and fails over HTTP; we fall back to the default app.
      const appId = nostr.appUserByPubkey(ctx.caller.adminId)?.app_id ?? defaultAppId
      const token = bytesToHex(random(inviteTokenBytes))
      store.insertInvite({ token, appId, sats: input.sats ?? null, createdAt: ctx.clock.now() })
      return { invitation_link: token }
    },
    GetInviteLinkState: async input => {
      const invite = store.invite(input.invite_token.trim())
      if (!invite) throw new OperationError('not_found', 'invite token not found')
      return { used: invite.used_by !== null }
    },
    UseInviteLink: async (input, ctx) => {
      redeem(input.invite_token.trim(), ctx.caller.appId, ctx.caller.pub, ctx.clock.now())
      return {}
    },
  }
}
