// Accounts, wallets (users) and applications as rows: creation and the lookups authentication needs.
import { bytesToHex } from '@noble/hashes/utils.js'
// libsecp256k1 (wasm): noble's first key derivation builds its tables, ~90 ms of the daemon's start.
import { xOnlyPointFromScalar } from 'tiny-secp256k1'
import type { Db, SqlExecutor } from '../store/index.js'
import type { AccountDirectory, WalletKeyOwner } from '../auth/index.js'
import { BoundedMap, BoundedSet } from '../bus/index.js'

export type Random = (bytes: number) => Uint8Array

export interface AppRow {
  id: string
  name: string
  owner_user_id: string
  allow_user_creation: number
  nostr_private_key: string
  nostr_public_key: string
  created_at: number
  /** The generation current app tokens carry; a rotation moves to the next and older tokens stop working. */
  token_generation: number
}

export interface UserRow {
  serial: number
  id: string
  account_id: string
  name: string
  balance_msat: number
  locked: number
  admin_key: string
  invoice_key: string
  created_at: number
}

export interface AppUserRow {
  serial: number
  identifier: string
  user_id: string
  app_id: string
  nostr_public_key: string | null
  callback_url: string
  topic_id: string
  created_at: number
}

export interface AccountsDeps {
  db: Db
  random: Random
  now(): number
}

const texts = {
  insertAccount: 'INSERT INTO accounts (id, created_at) VALUES (?, ?)',
  insertUser: `INSERT INTO users (id, account_id, name, admin_key, invoice_key, created_at)
               VALUES (@id, @accountId, @name, @adminKey, @invoiceKey, @createdAt)`,
  insertAppUser: `INSERT INTO app_users (identifier, user_id, app_id, topic_id, created_at)
                  VALUES (@identifier, @userId, @appId, @topicId, @createdAt)`,
  appUserByIdentifier: 'SELECT * FROM app_users WHERE identifier = ?',
}

export function accountStore({ db, random, now }: AccountsDeps) {
  const hex = (bytes: number) => bytesToHex(random(bytes))
  const statements = {
    insertAccount: db.prepare(texts.insertAccount),
    insertUser: db.prepare(texts.insertUser),
    insertApp: db.prepare(`INSERT INTO apps (id, name, owner_user_id, allow_user_creation, nostr_private_key,
                             nostr_public_key, created_at)
                           VALUES (@id, @name, @ownerUserId, @allowUserCreation, @privateKey, @publicKey, @createdAt)`),
    appByName: db.prepare('SELECT * FROM apps WHERE name = ?'),
    appById: db.prepare('SELECT * FROM apps WHERE id = ?'),
    rotateAppToken: db.prepare('UPDATE apps SET token_generation = token_generation + 1 WHERE id = ? RETURNING token_generation'),
    appTokenGeneration: db.prepare('SELECT token_generation FROM apps WHERE id = ?').pluck(),
    allApps: db.prepare('SELECT * FROM apps ORDER BY created_at'),
    appUserToken: db.prepare('SELECT 1 FROM app_users WHERE identifier = ? AND user_id = ? AND app_id = ?'),
    walletByKey: db.prepare(`SELECT id, account_id, admin_key = @key AS is_admin FROM users
                             WHERE admin_key = @key OR invoice_key = @key`),
    extensionEnabled: db.prepare('SELECT 1 FROM account_extensions WHERE account_id = ? AND extension = ?'),
    enableExtension: db.prepare(`INSERT INTO account_extensions (account_id, extension, enabled_at) VALUES (?, ?, ?)
                                 ON CONFLICT DO NOTHING`),
    disableExtension: db.prepare('DELETE FROM account_extensions WHERE account_id = ? AND extension = ?'),
    userById: db.prepare('SELECT * FROM users WHERE id = ?'),
    rotateKeys: db.prepare('UPDATE users SET admin_key = @adminKey, invoice_key = @invoiceKey WHERE id = @id'),
    insertAppUser: db.prepare(texts.insertAppUser),
    appUserByIdentifier: db.prepare(texts.appUserByIdentifier),
    appUserByUserId: db.prepare('SELECT * FROM app_users WHERE user_id = ?'),
    updateAllowUserCreation: db.prepare('UPDATE apps SET allow_user_creation = ? WHERE id = ?'),
    usersBalance: db.prepare('SELECT COALESCE(SUM(balance_msat), 0) FROM users').pluck(),
  }

  /** A new account with its first wallet; returns the wallet (user) id. */
  const createAccountWithWallet = (name: string): { accountId: string; userId: string } => {
    const accountId = hex(16)
    const userId = hex(32)
    const createdAt = now()
    statements.insertAccount.run(accountId, createdAt)
    statements.insertUser.run({ id: userId, accountId, name, adminKey: hex(32), invoiceKey: hex(32), createdAt })
    return { accountId, userId }
  }

  const createApp = db.transaction((name: string, allowUserCreation: boolean): AppRow => {
    const { userId } = createAccountWithWallet(`${name} (app owner)`)
    const privateKey = random(32)
    statements.insertApp.run({
      id: hex(32),
      name,
      ownerUserId: userId,
      allowUserCreation: allowUserCreation ? 1 : 0,
      privateKey: bytesToHex(privateKey),
      publicKey: Buffer.from(xOnlyPointFromScalar(privateKey)).toString('hex'),
      createdAt: now(),
    })
    return statements.appByName.get(name) as AppRow
  })

  /** Another wallet (user row) in an existing account, with its own keys and zero balance. */
  const addWallet = (accountId: string, name: string): UserRow => {
    const id = hex(32)
    statements.insertUser.run({ id, accountId, name, adminKey: hex(32), invoiceKey: hex(32), createdAt: now() })
    return statements.userById.get(id) as UserRow
  }

  // App users by wallet id: every payment's push and callback listeners ask for both wallets' rows (~20 µs a
  // query on a small machine). Only rows read outside a transaction are kept, so a kept row is committed; every
  // write to app_users goes through `forgetAppUsers` (they are rare: a callback URL, a linked key). Kept rows are
  // frozen: a caller cannot change what the next one reads.
  const appUsersByUser = new BoundedMap<string, AppUserRow>(appUserMemo)
  /** User token claims found valid (every authenticated user call checks them). */
  const validTokenClaims = new BoundedSet<string>(appUserMemo)
  /** The token generation of apps found to exist (every app call checks its token's): apps are never removed, and a
   * rotation forgets the app's entry. */
  const knownApps = new BoundedMap<string, number>(appUserMemo)
  const appUserOf = (userId: string): AppUserRow | undefined => {
    const kept = appUsersByUser.get(userId)
    if (kept) return kept
    const row = statements.appUserByUserId.get(userId) as AppUserRow | undefined
    if (!row || db.inTransaction) return row
    appUsersByUser.set(userId, Object.freeze(row))
    return row
  }

  return {
    createAccountWithWallet: db.transaction(createAccountWithWallet),
    addWallet,
    usersBalanceMsat: () => statements.usersBalance.get() as number,
    userById: (id: string) => statements.userById.get(id) as UserRow | undefined,
    appUser: (identifier: string) => statements.appUserByIdentifier.get(identifier) as AppUserRow | undefined,
    appUserOf,
    /** After any change to app_users rows: the rows kept by `appUserOf` are read again. */
    forgetAppUsers: () => appUsersByUser.clear(),
    /** A new app user with its own account and wallet. */
    createAppUser: db.transaction((appId: string, identifier: string): AppUserRow => {
      const { userId } = createAccountWithWallet('')
      statements.insertAppUser.run({ identifier, userId, appId, topicId: hex(32), createdAt: now() })
      return statements.appUserByIdentifier.get(identifier) as AppUserRow
    }),
    /** A new app user with its own account and wallet, on `tx` (with a balance posted in the same transaction). */
    async createAppUserOn(tx: SqlExecutor, appId: string, identifier: string): Promise<AppUserRow> {
      const accountId = hex(16)
      const userId = hex(32)
      const createdAt = now()
      await tx.run(texts.insertAccount, [accountId, createdAt])
      await tx.run(texts.insertUser, { id: userId, accountId, name: '', adminKey: hex(32), invoiceKey: hex(32), createdAt })
      await tx.run(texts.insertAppUser, { identifier, userId, appId, topicId: hex(32), createdAt: now() })
      return (await tx.one<AppUserRow>(texts.appUserByIdentifier, [identifier]))!
    },
    rotateKeys(userId: string): UserRow {
      statements.rotateKeys.run({ id: userId, adminKey: hex(32), invoiceKey: hex(32) })
      return statements.userById.get(userId) as UserRow
    },
    setAllowUserCreation: (appId: string, allow: boolean) => statements.updateAllowUserCreation.run(allow ? 1 : 0, appId),
    /** Moves the app's tokens to the next generation (older ones stop working); the new generation. */
    rotateAppToken(appId: string): number {
      const generation = (statements.rotateAppToken.get(appId) as { token_generation: number }).token_generation
      knownApps.delete(appId) // read again (and kept) by the next call, once the new generation is committed
      return generation
    },
    setExtension(accountId: string, extension: string, enabled: boolean): void {
      if (enabled) statements.enableExtension.run(accountId, extension, now())
      else statements.disableExtension.run(accountId, extension)
    },
    createApp,
    appByName: (name: string) => statements.appByName.get(name) as AppRow | undefined,
    appById: (id: string) => statements.appById.get(id) as AppRow | undefined,
    apps: () => statements.allApps.all() as AppRow[],
    /** The default app exists from the first start and lets any Nostr key open an account (upstream `wallet`). */
    ensureDefaultApp(name: string): AppRow {
      return this.appByName(name) ?? createApp(name, true)
    },
    directory(): AccountDirectory {
      return {
        appTokenGeneration: appId => {
          const known = knownApps.get(appId)
          if (known !== undefined) return known
          const generation = statements.appTokenGeneration.get(appId) as number | undefined
          if (generation !== undefined && !db.inTransaction) knownApps.set(appId, generation) // kept only once committed
          return generation
        },
        userTokenValid: claims => {
          // A valid triple stays valid: app users are never removed and their wallet and app never change.
          const key = `${claims.app_user_id} ${claims.user_id} ${claims.app_id}`
          if (validTokenClaims.has(key)) return true
          if (statements.appUserToken.get(claims.app_user_id, claims.user_id, claims.app_id) === undefined) return false
          if (db.inTransaction) return true // kept only once committed
          validTokenClaims.add(key)
          return true
        },
        walletByKey(key): WalletKeyOwner | undefined {
          const row = statements.walletByKey.get({ key }) as
            | { id: string; account_id: string; is_admin: number }
            | undefined
          return row && { walletId: row.id, accountId: row.account_id, keyType: row.is_admin ? 'admin' : 'invoice' }
        },
        extensionEnabled: (accountId, extension) =>
          statements.extensionEnabled.get(accountId, extension) !== undefined,
      }
    },
  }
}

export type AccountStore = ReturnType<typeof accountStore>

/** App user rows kept by `appUserOf` (a row is a few hundred bytes). */
const appUserMemo = 10_000
