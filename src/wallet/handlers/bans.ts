// BanUser: the operator locks a user and seizes its balance to `system:seized` (upstream sets it to 0), in one
// transaction. The answer names the balance before the ban and every app identity of the user.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import { userAccount, type Ledger } from '../ledger.js'
import { msatAsSats } from '../msat.js'

export interface BanDeps {
  db: Db
  ledger: Ledger
  now(): number
}

interface BannedAppUserRow {
  app_name: string
  app_id: string
  user_identifier: string
  nostr_pub: string | null
}

export function banHandlers({ db, ledger, now }: BanDeps): HandlerTable {
  const user = db.prepare('SELECT balance_msat FROM users WHERE id = ?').pluck()
  const lock = db.prepare('UPDATE users SET locked = 1 WHERE id = ?')
  const insertBan = db.prepare('INSERT INTO bans (user_id, seized_msat, banned_at) VALUES (?, ?, ?)')
  const appUsers = db.prepare(`SELECT a.name AS app_name, a.id AS app_id, au.identifier AS user_identifier,
      au.nostr_public_key AS nostr_pub FROM app_users au JOIN apps a ON a.id = au.app_id WHERE au.user_id = ?`)

  const ban = db.transaction((userId: string) => {
    const balanceMsat = user.get(userId) as number | undefined
    if (balanceMsat === undefined) throw new OperationError('not_found', 'user not found')
    lock.run(userId)
    const at = now()
    const serial = insertBan.run(userId, balanceMsat, at).lastInsertRowid
    ledger.post({
      kind: 'ban',
      ref: String(serial),
      legs: [
        { account: userAccount(userId), amountMsat: -balanceMsat },
        { account: 'system:seized', amountMsat: balanceMsat },
      ],
      at,
    })
    return { balanceMsat, appUsers: appUsers.all(userId) as BannedAppUserRow[] }
  })

  return {
    BanUser: async input => {
      const { balanceMsat, appUsers: banned } = ban(input.user_id.trim())
      return {
        balance_sats: msatAsSats(balanceMsat),
        banned_app_users: banned.map(row => ({ ...row, nostr_pub: row.nostr_pub ?? '' })),
      }
    },
  }
}
