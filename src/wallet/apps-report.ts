// GetAppsMetrics: per application, its users' balances and the money its wallets moved in a time window, read
// straight from the wallet's tables (read-only). An application's wallets are its owner and its app users; wallets of
// no application are reported last as upstream's "unlinked to app" entry. Amounts in sats, rounded down. Every
// figure is read in one read-only snapshot on SqlStore (the same statements on SQLite and PostgreSQL): sums are cast
// to BIGINT (PostgreSQL's SUM of a BIGINT is NUMERIC), and a condition read as a column is true/false there, 1/0 here.
import type { SqlExecutor, SqlStore } from '../store/index.js'
import type { InputOf, OutputOf } from '../bus/index.js'
import { msatAsSats, unixSeconds } from '../units/index.js'

type AppsMetrics = OutputOf<'GetAppsMetrics'>
type AppMetrics = AppsMetrics['apps'][number]
type UserOperation = AppMetrics['operations'][number]

interface AppRow {
  id: string
  name: string
  nostr_public_key: string
  owner_balance_msat: number
}

interface Window {
  from: number
  to: number
}

/** SQL conditions on a user id column, written with `?col`; `@app` is bound to the application's id. */
const appWallets = `?col IN (SELECT user_id FROM app_users WHERE app_id = @app
                             UNION SELECT owner_user_id FROM apps WHERE id = @app)`
const unlinkedWallets = '?col NOT IN (SELECT user_id FROM app_users UNION SELECT owner_user_id FROM apps)'
const appUsers = '?col IN (SELECT user_id FROM app_users WHERE app_id = @app)'


const allApps = `SELECT a.id, a.name, a.nostr_public_key, u.balance_msat AS owner_balance_msat
                 FROM apps a JOIN users u ON u.id = a.owner_user_id ORDER BY a.created_at, a.id`

export function appsReport(sql: SqlStore) {
  const linked = scopedStatements(appWallets, appUsers)
  const unlinked = scopedStatements(unlinkedWallets, unlinkedWallets)

  return (request: InputOf<'GetAppsMetrics'>): Promise<AppsMetrics> => {
    const window: Window = {
      from: request.from_unix ? request.from_unix * 1000 : 0,
      to: request.to_unix ? request.to_unix * 1000 + 999 : Number.MAX_SAFE_INTEGER,
    }
    const withOperations = request.include_operations === true
    // One snapshot, so the balances and the sums agree with each other while payments go on.
    return sql.transaction(
      async tx => {
        const apps: AppMetrics[] = []
        for (const app of await tx.many<AppRow>(allApps)) {
          apps.push(
            await appMetrics(
              tx,
              linked,
              app.id,
              { name: app.name, id: app.id, balance: msatAsSats(app.owner_balance_msat), npub: app.nostr_public_key ?? '' },
              window,
              withOperations,
            ),
          )
        }
        apps.push(
          await appMetrics(tx, unlinked, null, { name: 'unlinked to app', id: 'unlinked', balance: 0, npub: '' }, window, withOperations),
        )
        return { apps }
      },
      { readOnly: true, isolation: 'repeatable read' },
    )
  }
}

type Statements = ReturnType<typeof scopedStatements>

/** The report's queries for one kind of scope; `wallets` selects the money side, `members` the user statistics. */
function scopedStatements(wallets: string, members: string) {
  const on = (condition: string, column: string) => condition.replaceAll('?col', column)
  return {
    members: `SELECT u.balance_msat,
                            EXISTS (SELECT 1 FROM payments p WHERE p.user_id = u.id)
                            OR EXISTS (SELECT 1 FROM transfers t WHERE t.from_user_id = u.id) AS has_spent
                         FROM users u
                         WHERE ${on(members, 'u.id')} AND u.created_at BETWEEN @from AND @to`,
    received: `SELECT CAST(
        (SELECT COALESCE(SUM(paid_msat), 0) FROM invoices
          WHERE ${on(wallets, 'user_id')} AND paid_at BETWEEN @from AND @to)
      + (SELECT COALESCE(SUM(amount_msat), 0) FROM transfers
          WHERE kind = 'address' AND ${on(wallets, 'to_user_id')} AND created_at BETWEEN @from AND @to) AS BIGINT) AS n`,
    invoices: `SELECT COUNT(*) AS n FROM invoices WHERE ${on(wallets, 'user_id')} AND created_at BETWEEN @from AND @to`,
    spent: `SELECT CAST(
        (SELECT COALESCE(SUM(amount_msat), 0) FROM payments
          WHERE status = 'succeeded' AND ${on(wallets, 'user_id')} AND resolved_at BETWEEN @from AND @to)
      + (SELECT COALESCE(SUM(amount_msat), 0) FROM transfers
          WHERE kind = 'address' AND ${on(wallets, 'from_user_id')} AND created_at BETWEEN @from AND @to) AS BIGINT) AS n`,
    fees: `SELECT CAST(
        (SELECT COALESCE(SUM(service_fee_msat), 0) FROM payments
          WHERE status = 'succeeded' AND ${on(wallets, 'user_id')} AND resolved_at BETWEEN @from AND @to)
      + (SELECT COALESCE(SUM(fee_msat), 0) FROM transfers
          WHERE ${on(wallets, 'from_user_id')} AND created_at BETWEEN @from AND @to) AS BIGINT) AS n`,
    incomingInvoices: `SELECT serial, payment_request, paid_msat, paid_at, paid_internally FROM invoices
                       WHERE ${on(wallets, 'user_id')} AND paid_at BETWEEN @from AND @to`,
    outgoingInvoices: `SELECT serial, payment_request, amount_msat, service_fee_msat, routing_fee_msat, internal,
                              status, resolved_at, created_at FROM payments
                       WHERE ${on(wallets, 'user_id')} AND created_at BETWEEN @from AND @to`,
    transfers: `SELECT serial, kind, from_user_id, to_user_id, amount_msat, fee_msat, address, tx_hash, created_at,
                       ${on(wallets, 'from_user_id')} AS outgoing, ${on(wallets, 'to_user_id')} AS incoming
                FROM transfers
                WHERE (${on(wallets, 'from_user_id')} OR ${on(wallets, 'to_user_id')})
                  AND created_at BETWEEN @from AND @to`,
  }
}

async function appMetrics(
  tx: SqlExecutor,
  statements: Statements,
  /** Null for the wallets of no application. */
  appId: string | null,
  app: AppMetrics['app'],
  window: Window,
  withOperations: boolean,
): Promise<AppMetrics> {
  const params = { ...(appId === null ? {} : { app: appId }), from: window.from, to: window.to }
  const allTime = { ...params, from: 0, to: Number.MAX_SAFE_INTEGER }
  const members = await tx.many<{ balance_msat: number; has_spent: number | boolean }>(statements.members, params)
  const figure = async (statement: string, at: Record<string, unknown>) => Number((await tx.one<{ n: number }>(statement, at))!.n)
  const positive = members.map(m => msatAsSats(m.balance_msat)).filter(balance => balance > 0).sort((a, b) => a - b)
  const available = positive.reduce((sum, balance) => sum + balance, 0)
  return {
    app,
    users: {
      total: members.length,
      no_balance: members.filter(m => msatAsSats(m.balance_msat) === 0).length,
      negative_balance: members.filter(m => m.balance_msat < 0).length,
      always_been_inactive: members.filter(m => msatAsSats(m.balance_msat) === 0 && !m.has_spent).length,
      balance_avg: positive.length > 0 ? Math.round(available / positive.length) : 0,
      balance_median: median(positive),
    },
    received: msatAsSats(await figure(statements.received, params)),
    spent: msatAsSats(await figure(statements.spent, params)),
    available,
    fees: msatAsSats(await figure(statements.fees, params)),
    invoices: await figure(statements.invoices, params),
    total_fees: msatAsSats(await figure(statements.fees, allTime)),
    operations: withOperations ? await operations(tx, statements, params) : [],
  }
}

/** Of whole sats, ascending; the mean of the two middle values for an even count (rounded). */
function median(sorted: number[]): number {
  if (sorted.length === 0) return 0
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2)
}

async function operations(tx: SqlExecutor, statements: Statements, params: Record<string, unknown>): Promise<UserOperation[]> {
  const out: { at: number; op: UserOperation }[] = []
  const op = (fields: Omit<UserOperation, 'confirmed'>): UserOperation => ({ ...fields, confirmed: true })

  for (const row of await tx.many<{
    serial: number; payment_request: string; paid_msat: number; paid_at: number; paid_internally: number
  }>(statements.incomingInvoices, params)) {
    out.push({
      at: row.paid_at,
      op: op({
        paidAtUnix: unixSeconds(row.paid_at), type: 'INCOMING_INVOICE', inbound: true, amount: msatAsSats(row.paid_msat),
        identifier: row.payment_request, operationId: `INCOMING_INVOICE-${row.serial}`, service_fee: 0, network_fee: 0,
        tx_hash: '', internal: row.paid_internally === 1,
      }),
    })
  }
  for (const row of await tx.many<{
    serial: number; payment_request: string; amount_msat: number; service_fee_msat: number; routing_fee_msat: number | null
    internal: number; status: string; resolved_at: number | null; created_at: number
  }>(statements.outgoingInvoices, params)) {
    const paidAtUnix = row.status === 'succeeded' ? unixSeconds(row.resolved_at!) : row.status === 'failed' ? -1 : 0
    out.push({
      at: row.created_at,
      op: op({
        paidAtUnix, type: 'OUTGOING_INVOICE', inbound: false, amount: msatAsSats(row.amount_msat), identifier: row.payment_request,
        operationId: `OUTGOING_INVOICE-${row.serial}`, service_fee: msatAsSats(row.service_fee_msat),
        network_fee: msatAsSats(row.routing_fee_msat ?? 0), tx_hash: '', internal: row.internal === 1,
      }),
    })
  }
  for (const row of await tx.many<{
    serial: number; kind: 'user' | 'address'; from_user_id: string; to_user_id: string; amount_msat: number; fee_msat: number
    address: string | null; tx_hash: string | null; created_at: number; outgoing: number | boolean; incoming: number | boolean
  }>(statements.transfers, params)) {
    const onChain = row.kind === 'address'
    const common = { paidAtUnix: unixSeconds(row.created_at), amount: msatAsSats(row.amount_msat), network_fee: 0, internal: true }
    if (row.outgoing) {
      const type = onChain ? 'OUTGOING_TX' : 'OUTGOING_USER_TO_USER'
      out.push({
        at: row.created_at,
        op: op({
          ...common, type, inbound: false, identifier: onChain ? row.address! : row.to_user_id,
          operationId: `${type}-${row.serial}`, service_fee: msatAsSats(row.fee_msat), tx_hash: row.tx_hash ?? '',
        }),
      })
    }
    if (row.incoming) {
      const type = onChain ? 'INCOMING_TX' : 'INCOMING_USER_TO_USER'
      out.push({
        at: row.created_at,
        op: op({
          ...common, type, inbound: true, identifier: onChain ? row.address! : row.from_user_id,
          operationId: `${type}-${row.serial}`, service_fee: 0, tx_hash: row.tx_hash ?? '',
        }),
      })
    }
  }
  return out.sort((a, b) => b.at - a.at).map(entry => entry.op)
}
