// Accounts, wallets (users) and applications as rows: creation and the lookups authentication needs.
import { bytesToHex } from '@noble/hashes/utils.js'
// libsecp256k1 (wasm): noble's first key derivation builds its tables, ~90 ms of the daemon's start.
import { xOnlyPointFromScalar } from 'tiny-secp256k1'
import { sqlErrorKind, type SqlExecutor, type SqlStore } from '../store/index.js'
import type { AccountDirectory, WalletKeyOwner } from '../auth/index.js'
import { BoundedMap, BoundedSet } from '../limits/index.js'

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
  /** 1 for an account opened by CLINK enroll: debits and management by its own key only, unless granted. */
  owner_only_clink: number
}

export interface AccountsDeps {
  sql: SqlStore
  random: Random
  now(): number
}

const texts = {
  insertAccount: 'INSERT INTO accounts (id, created_at) VALUES (?, ?)',
  insertUser: `INSERT INTO users (id, account_id, name, admin_key, invoice_key, created_at)
               VALUES (@id, @accountId, @name, @adminKey, @invoiceKey, @createdAt)`,
  insertApp: `INSERT INTO apps (id, name, owner_user_id, allow_user_creation, nostr_private_key, nostr_public_key, created_at)
              VALUES (@id, @name, @ownerUserId, @allowUserCreation, @privateKey, @publicKey, @createdAt)`,
  insertAppUser: `INSERT INTO app_users (identifier, user_id, app_id, topic_id, created_at)
                  VALUES (@identifier, @userId, @appId, @topicId, @createdAt)`,
  appUserByIdentifier: 'SELECT * FROM app_users WHERE identifier = ?',
  appUserByUserId: 'SELECT * FROM app_users WHERE user_id = ?',
  appByName: 'SELECT * FROM apps WHERE name = ?',
  appById: 'SELECT * FROM apps WHERE id = ?',
  allApps: 'SELECT * FROM apps ORDER BY created_at',
  rotateAppToken: 'UPDATE apps SET token_generation = token_generation + 1 WHERE id = ? RETURNING token_generation',
  appTokenGeneration: 'SELECT token_generation FROM apps WHERE id = ?',
  appUserToken: 'SELECT 1 AS found FROM app_users WHERE identifier = ? AND user_id = ? AND app_id = ?',
  walletByKey: `SELECT id, account_id, CASE WHEN admin_key = @key THEN 1 ELSE 0 END AS is_admin FROM users
                WHERE admin_key = @key OR invoice_key = @key`,
  extensionEnabled: 'SELECT 1 AS found FROM account_extensions WHERE account_id = ? AND extension = ?',
  enableExtension: `INSERT INTO account_extensions (account_id, extension, enabled_at) VALUES (?, ?, ?)
                    ON CONFLICT DO NOTHING`,
  disableExtension: 'DELETE FROM account_extensions WHERE account_id = ? AND extension = ?',
  userById: 'SELECT * FROM users WHERE id = ?',
  rotateKeys: 'UPDATE users SET admin_key = @adminKey, invoice_key = @invoiceKey WHERE id = @id RETURNING *',
  updateAllowUserCreation: 'UPDATE apps SET allow_user_creation = ? WHERE id = ?',
  // SUM of BIGINT is NUMERIC on PostgreSQL (a string through pg): cast back to a BIGINT, a number on both engines.
  usersBalance: 'SELECT CAST(COALESCE(SUM(balance_msat), 0) AS BIGINT) AS total FROM users',
}

export function accountStore({ sql, random, now }: AccountsDeps) {
  const hex = (bytes: number) => bytesToHex(random(bytes))

  /** A new account with its first wallet, on `tx`. */
  const accountWithWalletOn = async (tx: SqlExecutor, name: string): Promise<{ accountId: string; userId: string }> => {
    const accountId = hex(16)
    const userId = hex(32)
    const createdAt = now()
    await tx.run(texts.insertAccount, [accountId, createdAt])
    await tx.run(texts.insertUser, { id: userId, accountId, name, adminKey: hex(32), invoiceKey: hex(32), createdAt })
    return { accountId, userId }
  }

  /** A new app user with its own account and wallet, on `tx`. */
  const createAppUserOn = async (tx: SqlExecutor, appId: string, identifier: string): Promise<AppUserRow> => {
    const { userId } = await accountWithWalletOn(tx, '')
    await tx.run(texts.insertAppUser, { identifier, userId, appId, topicId: hex(32), createdAt: now() })
    return (await tx.one<AppUserRow>(texts.appUserByIdentifier, [identifier]))!
  }

  const createApp = (name: string, allowUserCreation: boolean): Promise<AppRow> =>
    sql.transaction(async tx => {
      const { userId } = await accountWithWalletOn(tx, `${name} (app owner)`)
      const privateKey = random(32)
      await tx.run(texts.insertApp, {
        id: hex(32),
        name,
        ownerUserId: userId,
        allowUserCreation: allowUserCreation ? 1 : 0,
        privateKey: bytesToHex(privateKey),
        publicKey: Buffer.from(xOnlyPointFromScalar(privateKey)).toString('hex'),
        createdAt: now(),
      })
      return (await tx.one<AppRow>(texts.appByName, [name]))!
    })

  const appByName = (name: string) => sql.one<AppRow>(texts.appByName, [name])

  // App users by wallet id: every payment's push and callback listeners ask for both wallets' rows (~20 µs a
  // query on a small machine). Reads through `sql` outside a transaction see only committed rows; every write to
  // app_users goes through `forgetAppUsers` (they are rare: a callback URL, a linked key), which also moves
  // `generation`: a read that began before a write and ends after it keeps nothing, since it may hold the old row.
  // Kept rows are frozen: a caller cannot change what the next one reads.
  const appUsersByUser = new BoundedMap<string, AppUserRow>(appUserMemo)
  /** User token claims found valid (every authenticated user call checks them). */
  const validTokenClaims = new BoundedSet<string>(appUserMemo)
  /** The token generation of apps found to exist (every app call checks its token's): apps are never removed, and a
   * rotation forgets the app's entry. */
  const knownApps = new BoundedMap<string, number>(appUserMemo)
  let generation = 0
  const appUserOf = async (userId: string, on?: SqlExecutor): Promise<AppUserRow | undefined> => {
    const kept = appUsersByUser.get(userId)
    if (kept) return kept
    const before = generation
    const row = await (on ?? sql).one<AppUserRow>(texts.appUserByUserId, [userId])
    // A row read inside a caller's transaction is not known to be committed: not kept.
    if (!row || on || before !== generation) return row
    appUsersByUser.set(userId, Object.freeze(row))
    return row
  }
  const forgetAppUsers = () => {
    generation += 1
    appUsersByUser.clear()
  }

  return {
    createAccountWithWallet: (name: string) => sql.transaction(tx => accountWithWalletOn(tx, name)),
    /** Another wallet (user row) in an existing account, with its own keys and zero balance. */
    async addWallet(accountId: string, name: string): Promise<UserRow> {
      const id = hex(32)
      await sql.run(texts.insertUser, { id, accountId, name, adminKey: hex(32), invoiceKey: hex(32), createdAt: now() })
      return (await sql.one<UserRow>(texts.userById, [id]))!
    },
    usersBalanceMsat: async () => (await sql.one<{ total: number }>(texts.usersBalance))!.total,
    userById: (id: string) => sql.one<UserRow>(texts.userById, [id]),
    appUser: (identifier: string, on: SqlExecutor = sql) => on.one<AppUserRow>(texts.appUserByIdentifier, [identifier]),
    /** An app user by identifier, read on `tx` (inside a transaction of the caller's). */
    appUserOn: (tx: SqlExecutor, identifier: string) => tx.one<AppUserRow>(texts.appUserByIdentifier, [identifier]),
    appUserOf,
    /** After any change to app_users rows: the rows kept by `appUserOf` are read again. */
    forgetAppUsers,
    /** A new app user with its own account and wallet. */
    createAppUser: (appId: string, identifier: string) => sql.transaction(tx => createAppUserOn(tx, appId, identifier)),
    /** A new app user with its own account and wallet, on `tx` (with a balance posted in the same transaction). */
    createAppUserOn,
    async rotateKeys(userId: string): Promise<UserRow> {
      return (await sql.one<UserRow>(texts.rotateKeys, { id: userId, adminKey: hex(32), invoiceKey: hex(32) }))!
    },
    setAllowUserCreation: (appId: string, allow: boolean) => sql.run(texts.updateAllowUserCreation, [allow ? 1 : 0, appId]),
    /** Moves the app's tokens to the next generation (older ones stop working); the new generation. */
    async rotateAppToken(appId: string): Promise<number> {
      const row = (await sql.one<{ token_generation: number }>(texts.rotateAppToken, [appId]))!
      generation += 1 // a read of the old generation still under way keeps nothing
      knownApps.delete(appId) // read again (and kept) by the next call, now that the new generation is committed
      return row.token_generation
    },
    async setExtension(accountId: string, extension: string, enabled: boolean): Promise<void> {
      if (enabled) await sql.run(texts.enableExtension, [accountId, extension, now()])
      else await sql.run(texts.disableExtension, [accountId, extension])
    },
    createApp,
    appByName,
    appById: (id: string, on: SqlExecutor = sql) => on.one<AppRow>(texts.appById, [id]),
    apps: () => sql.many<AppRow>(texts.allApps),
    /**
     * The default app exists from the first start and lets any Nostr key open an account (upstream `wallet`). Two
     * daemons starting on one database may both try: the loser's insert is refused (unique name) and it reads the
     * winner's app.
     */
    async ensureDefaultApp(name: string): Promise<AppRow> {
      const found = await appByName(name)
      if (found) return found
      try {
        return await createApp(name, true)
      } catch (err) {
        const winner = sqlErrorKind(err) === 'unique' ? await appByName(name) : undefined
        if (!winner) throw err
        return winner
      }
    },
    directory(): AccountDirectory {
      return {
        appTokenGeneration: async appId => {
          const known = knownApps.get(appId)
          if (known !== undefined) return known
          const before = generation
          const row = await sql.one<{ token_generation: number }>(texts.appTokenGeneration, [appId])
          if (row && before === generation) knownApps.set(appId, row.token_generation)
          return row?.token_generation
        },
        userTokenValid: async claims => {
          // A valid triple stays valid: app users are never removed and their wallet and app never change.
          const key = `${claims.app_user_id} ${claims.user_id} ${claims.app_id}`
          if (validTokenClaims.has(key)) return true
          const row = await sql.one(texts.appUserToken, [claims.app_user_id, claims.user_id, claims.app_id])
          if (row === undefined) return false
          validTokenClaims.add(key) // read outside any transaction: committed
          return true
        },
        async walletByKey(key): Promise<WalletKeyOwner | undefined> {
          const row = await sql.one<{ id: string; account_id: string; is_admin: number }>(texts.walletByKey, { key })
          return row && { walletId: row.id, accountId: row.account_id, keyType: row.is_admin ? 'admin' : 'invoice' }
        },
        extensionEnabled: async (accountId, extension) =>
          (await sql.one(texts.extensionEnabled, [accountId, extension])) !== undefined,
      }
    },
  }
}

export type AccountStore = ReturnType<typeof accountStore>

/** App user rows kept by `appUserOf` (a row is a few hundred bytes). */
const appUserMemo = 10_000
