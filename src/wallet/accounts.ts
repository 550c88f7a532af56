// Accounts, wallets (users) and applications as rows: creation and the lookups authentication needs.
import { bytesToHex } from '@noble/hashes/utils.js'
import { getPublicKey } from 'nostr-tools/pure'
import type { Db } from '../store/index.js'
import type { AccountDirectory, WalletKeyOwner } from '../auth/index.js'

export type Random = (bytes: number) => Uint8Array

export interface AppRow {
  id: string
  name: string
  owner_user_id: string
  allow_user_creation: number
  nostr_private_key: string
  nostr_public_key: string
  created_at: number
}

export interface AccountsDeps {
  db: Db
  random: Random
  now(): number
}

export function accountStore({ db, random, now }: AccountsDeps) {
  const hex = (bytes: number) => bytesToHex(random(bytes))
  const statements = {
    insertAccount: db.prepare('INSERT INTO accounts (id, created_at) VALUES (?, ?)'),
    insertUser: db.prepare(`INSERT INTO users (id, account_id, name, admin_key, invoice_key, created_at)
                            VALUES (@id, @accountId, @name, @adminKey, @invoiceKey, @createdAt)`),
    insertApp: db.prepare(`INSERT INTO apps (id, name, owner_user_id, allow_user_creation, nostr_private_key,
                             nostr_public_key, created_at)
                           VALUES (@id, @name, @ownerUserId, @allowUserCreation, @privateKey, @publicKey, @createdAt)`),
    appByName: db.prepare('SELECT * FROM apps WHERE name = ?'),
    appById: db.prepare('SELECT * FROM apps WHERE id = ?'),
    allApps: db.prepare('SELECT * FROM apps ORDER BY created_at'),
    appUserToken: db.prepare('SELECT 1 FROM app_users WHERE identifier = ? AND user_id = ? AND app_id = ?'),
    walletByKey: db.prepare(`SELECT id, account_id, admin_key = @key AS is_admin FROM users
                             WHERE admin_key = @key OR invoice_key = @key`),
    extensionEnabled: db.prepare('SELECT 1 FROM account_extensions WHERE account_id = ? AND extension = ?'),
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
      publicKey: getPublicKey(privateKey),
      createdAt: now(),
    })
    return statements.appByName.get(name) as AppRow
  })

  return {
    createAccountWithWallet: db.transaction(createAccountWithWallet),
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
        appExists: appId => statements.appById.get(appId) !== undefined,
        userTokenValid: claims =>
          statements.appUserToken.get(claims.app_user_id, claims.user_id, claims.app_id) !== undefined,
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
