// BanUser: the operator locks a user and seizes its balance to `system:seized` (upstream sets it to 0), in one
// transaction. The answer names the balance before the ban and every app identity of the user.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { MoneyTransaction } from '../group-commit.js'
import { userAccount, type Ledger } from '../ledger.js'
import { msatAsSats } from '../../units/index.js'

export interface BanDeps {
  transaction: MoneyTransaction
  ledger: Ledger
  now(): number
}

interface BannedAppUserRow {
  app_name: string
  app_id: string
  user_identifier: string
  nostr_pub: string | null
}

const texts = {
  user: 'SELECT balance_msat FROM users WHERE id = ?',
  lock: 'UPDATE users SET locked = 1 WHERE id = ?',
  insertBan: 'INSERT INTO bans (user_id, seized_msat, banned_at) VALUES (?, ?, ?) RETURNING serial',
  appUsers: `SELECT a.name AS app_name, a.id AS app_id, au.identifier AS user_identifier,
      au.nostr_public_key AS nostr_pub FROM app_users au JOIN apps a ON a.id = au.app_id WHERE au.user_id = ?`,
}

export function banHandlers({ transaction, ledger, now }: BanDeps): HandlerTable {
  const ban = (userId: string) =>
    transaction(async tx => {
      // The row is locked before its balance is read (PostgreSQL): a payment cannot move it in between.
      const row = await tx.one<{ balance_msat: number }>(texts.user + (tx.engine === 'postgres' ? ' FOR UPDATE' : ''), [userId])
      if (row === undefined) throw new OperationError('not_found', 'user not found')
      const balanceMsat = row.balance_msat
      await tx.run(texts.lock, [userId])
      const at = now()
      const { serial } = (await tx.one<{ serial: number }>(texts.insertBan, [userId, balanceMsat, at]))!
      await ledger.post(tx, {
        kind: 'ban',
        ref: String(serial),
        legs: [
          { account: userAccount(userId), amountMsat: -balanceMsat },
          { account: 'system:seized', amountMsat: balanceMsat },
        ],
        at,
      })
      return { balanceMsat, appUsers: await tx.many<BannedAppUserRow>(texts.appUsers, [userId]) }
    })

  return {
    BanUser: async input => {
      const { balanceMsat, appUsers: banned } = await ban(input.user_id.trim())
      return {
        balance_sats: msatAsSats(balanceMsat),
        banned_app_users: banned.map(row => ({ ...row, nostr_pub: row.nostr_pub ?? '' })),
      }
    },
  }
}
