// The admin's view of the users (GetUsersAdminInfo, from upstream's next version, for its dashboard): a page of
// wallets, most recently active first, each with its balance, ban state, the app identity it has (one at most here:
// an app user is one wallet) and the app it owns. Upstream orders by its row's last update; the closest this store
// keeps is when the wallet was last seen, else when it was made.
import type { Handler, HandlerTable } from '../../bus/index.js'
import type { SqlStore } from '../../store/index.js'
import { msatAsSats } from '../../units/index.js'

interface Row {
  id: string
  balance_msat: number
  locked: number
  identifier: string | null
  nostr_public_key: string | null
  callback_url: string | null
  topic_id: string | null
  owned_app_id: string | null
}

const pageText = `
  SELECT u.id, u.balance_msat, u.locked, au.identifier, au.nostr_public_key, au.callback_url, au.topic_id,
         a.id AS owned_app_id
  FROM users u
  LEFT JOIN app_users au ON au.user_id = u.id
  LEFT JOIN apps a ON a.owner_user_id = u.id
  ORDER BY COALESCE(u.last_seen_at, u.created_at) DESC, u.serial DESC
  LIMIT @take OFFSET @skip`

/** Upstream's page size: 20 unless asked, never below 1 or above 50. */
const takeOf = (take: number | undefined) => Math.min(50, Math.max(1, take ?? 20))

export function adminUsersHandlers(sql: SqlStore): HandlerTable {
  const GetUsersAdminInfo: Handler<'GetUsersAdminInfo'> = async input => {
    const [rows, counted] = await Promise.all([
      sql.many<Row>(pageText, { take: takeOf(input.take), skip: Math.max(0, input.skip ?? 0) }),
      sql.one<{ n: number }>('SELECT count(*) AS n FROM users'),
    ])
    return {
      total: Number(counted?.n ?? 0),
      users: rows.map(row => ({
        user_id: row.id,
        balance: msatAsSats(Number(row.balance_msat)),
        locked: Number(row.locked) === 1,
        app_users:
          row.identifier === null
            ? []
            : [{ app_user_id: row.identifier, npub: row.nostr_public_key ?? '', has_callback_url: Boolean(row.callback_url), has_topic_id: Boolean(row.topic_id) }],
        ...(row.owned_app_id ? { owner_of_app_id: row.owned_app_id } : {}),
      })),
    }
  }
  return { GetUsersAdminInfo }
}
