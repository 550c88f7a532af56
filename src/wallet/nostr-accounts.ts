// App users as relay keys see them (reference/pub-protocol.md §3.7): the sender of a request event is an app
// user found by its linked pubkey across all apps, or a new one where the addressed app lets clients open
// accounts. Linking and invites bind a pubkey to an app user through the same functions.
import { bytesToHex } from '@noble/hashes/utils.js'
import { OperationError, type Caller } from '../bus/index.js'
import type { Db } from '../store/index.js'
import type { AccountStore, AppUserRow, Random } from './accounts.js'

export interface NostrAccountsDeps {
  db: Db
  accounts: AccountStore
  random: Random
}

export type NostrUser = Extract<Caller, { kind: 'user' }>

export interface NostrAccounts {
  /**
   * The user behind a pubkey talking to an app. Upstream searches every app, so a key linked in app A that talks to
   * app B gets its app-A user with app B's id; a key with no user is given one when the app allows user creation.
   */
  userForPubkey(pubkey: string, appId: string): NostrUser
  /** The app user a pubkey is linked to, if any. */
  appUserByPubkey(pubkey: string): AppUserRow | undefined
  /** Links (or re-links) an app user to a pubkey; a pubkey already linked elsewhere is a conflict. */
  linkPubkey(identifier: string, pubkey: string): void
  /** A new app user of an app (own account and wallet, random identifier) owned by a pubkey without an account. */
  createForPubkey(appId: string, pubkey: string): AppUserRow
}

const identifierBytes = 32 // 64 hex, like upstream's auto-created identifiers

export function nostrAccounts({ db, accounts, random }: NostrAccountsDeps): NostrAccounts {
  const byPubkey = db.prepare('SELECT * FROM app_users WHERE nostr_public_key = ?')
  const setPubkey = db.prepare('UPDATE app_users SET nostr_public_key = ? WHERE identifier = ?')

  const appUserByPubkey = (pubkey: string) => byPubkey.get(pubkey) as AppUserRow | undefined

  const createForPubkey = db.transaction((appId: string, pubkey: string): AppUserRow => {
    if (appUserByPubkey(pubkey)) throw new OperationError('conflict', 'this key already has an account')
    const identifier = bytesToHex(random(identifierBytes))
    accounts.createAppUser(appId, identifier)
    setPubkey.run(pubkey, identifier)
    accounts.forgetAppUsers()
    return accounts.appUser(identifier)!
  })

  return {
    appUserByPubkey,
    createForPubkey,
    userForPubkey(pubkey, appId) {
      const found = appUserByPubkey(pubkey)
      if (found) return { kind: 'user', userId: found.user_id, appId, appUserId: found.identifier }
      const app = accounts.appById(appId)
      if (!app || !app.allow_user_creation) {
        throw new OperationError('forbidden', 'user creation by client is not allowed in this app')
      }
      const created = createForPubkey(appId, pubkey)
      return { kind: 'user', userId: created.user_id, appId, appUserId: created.identifier }
    },
    linkPubkey(identifier, pubkey) {
      const holder = appUserByPubkey(pubkey)
      if (holder && holder.identifier !== identifier) throw new OperationError('conflict', 'this key already has an account')
      setPubkey.run(pubkey, identifier)
      accounts.forgetAppUsers()
    },
  }
}
