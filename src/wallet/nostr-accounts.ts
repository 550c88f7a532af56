// App users as relay keys see them: the sender of a request event is an app
// user found by its linked pubkey across all apps, or a new one where the addressed app lets clients open
// accounts. Linking and invites bind a pubkey to an app user through the same functions.
import { bytesToHex } from '@noble/hashes/utils.js'
import { OperationError, takeOrRefuse, type Caller } from '../bus/index.js'
import { RateLimiter, type RateBudget } from '../limits/index.js'
import { sqlErrorKind, type SqlStore } from '../store/index.js'
import type { AccountStore, AppUserRow, Random } from './accounts.js'

export interface NostrAccountsDeps {
  sql: SqlStore
  accounts: AccountStore
  random: Random
  now(): number
  /** Accounts keys may open on their own, node wide; unlimited without it. */
  newAccounts?: RateBudget
}

export type NostrUser = Extract<Caller, { kind: 'user' }>

export interface NostrAccounts {
  /**
   * The user behind a pubkey talking to an app. Upstream searches every app, so a key linked in app A that talks to
   * app B gets its app-A user with app B's id; a key with no user is given one when the app allows user creation.
   */
  userForPubkey(pubkey: string, appId: string): Promise<NostrUser>
  /** The app user a pubkey is linked to, if any. */
  appUserByPubkey(pubkey: string): Promise<AppUserRow | undefined>
  /** Links (or re-links) an app user to a pubkey; a pubkey already linked elsewhere is a conflict. */
  linkPubkey(identifier: string, pubkey: string): Promise<void>
  /** A new app user of an app (own account and wallet, random identifier) owned by a pubkey without an account. */
  createForPubkey(appId: string, pubkey: string, opts?: NewAccountOptions): Promise<AppUserRow>
  /**
   * A new account a key opens on its own: forbidden when the app does not allow user creation, limit_exceeded
   * (with its retry time) beyond the node's new accounts a minute, conflict when the key has an account.
   */
  openForPubkey(appId: string, pubkey: string, opts?: NewAccountOptions): Promise<AppUserRow>
}

export interface NewAccountOptions {
  /** CLINK enroll's accounts: debits and management by their own key only, unless granted. */
  ownerOnlyClink?: boolean
}

const identifierBytes = 32 // 64 hex, like upstream's auto-created identifiers

const texts = {
  byPubkey: 'SELECT * FROM app_users WHERE nostr_public_key = ?',
  setPubkey: 'UPDATE app_users SET nostr_public_key = ? WHERE identifier = ?',
  setOwnerOnly: 'UPDATE app_users SET owner_only_clink = 1 WHERE identifier = ?',
}

const alreadyLinked = () => new OperationError('conflict', 'this key already has an account')

export function nostrAccounts({ sql, accounts, random, now, newAccounts }: NostrAccountsDeps): NostrAccounts {
  // A stranger's fresh key costs an account, a wallet and rows; fresh keys are free to make, so the node bounds how
  // many it opens a minute (one bucket: a relay does not tell the daemon which address an event came from).
  const opening = newAccounts ? new RateLimiter(newAccounts, 1) : undefined
  const appUserByPubkey = (pubkey: string) => sql.one<AppUserRow>(texts.byPubkey, [pubkey])

  // The key's check and its new user commit together; two first requests of one key at once race on the unique
  // pubkey column: the loser's transaction rolls back whole and it answers as for a linked key.
  const createForPubkey = async (appId: string, pubkey: string, opts: NewAccountOptions = {}): Promise<AppUserRow> => {
    try {
      return await sql.transaction(async tx => {
        if (await tx.one(texts.byPubkey, [pubkey])) throw alreadyLinked()
        const identifier = bytesToHex(random(identifierBytes))
        await accounts.createAppUserOn(tx, appId, identifier)
        await tx.run(texts.setPubkey, [pubkey, identifier])
        if (opts.ownerOnlyClink) await tx.run(texts.setOwnerOnly, [identifier])
        return (await accounts.appUserOn(tx, identifier))!
      })
    } catch (err) {
      if (sqlErrorKind(err) === 'unique') throw alreadyLinked()
      throw err
    } finally {
      accounts.forgetAppUsers()
    }
  }

  const openForPubkey = async (appId: string, pubkey: string, opts: NewAccountOptions = {}): Promise<AppUserRow> => {
    const app = await accounts.appById(appId)
    if (!app || !app.allow_user_creation) {
      throw new OperationError('forbidden', 'user creation by client is not allowed in this app')
    }
    if (opening) takeOrRefuse(opening, 'node', now(), "new accounts on this node (the operator's [apps] new_accounts_per_minute)")
    return createForPubkey(appId, pubkey, opts)
  }

  return {
    appUserByPubkey,
    createForPubkey,
    openForPubkey,
    async userForPubkey(pubkey, appId) {
      const found = await appUserByPubkey(pubkey)
      if (found) return { kind: 'user', userId: found.user_id, appId, appUserId: found.identifier }
      const created = await openForPubkey(appId, pubkey).catch(async (err: unknown) => {
        // Another request of the same key created its user meanwhile: that user is the answer.
        const winner = err instanceof OperationError && err.code === 'conflict' ? await appUserByPubkey(pubkey) : undefined
        if (!winner) throw err
        return winner
      })
      return { kind: 'user', userId: created.user_id, appId, appUserId: created.identifier }
    },
    async linkPubkey(identifier, pubkey) {
      // The check and the link in one transaction; a link made elsewhere meanwhile trips the unique column.
      try {
        await sql.transaction(async tx => {
          const holder = await tx.one<AppUserRow>(texts.byPubkey, [pubkey])
          if (holder && holder.identifier !== identifier) throw alreadyLinked()
          await tx.run(texts.setPubkey, [pubkey, identifier])
        })
      } catch (err) {
        if (sqlErrorKind(err) === 'unique') throw alreadyLinked()
        throw err
      } finally {
        accounts.forgetAppUsers()
      }
    },
  }
}
