// The operator's views of the wallets (the console, docs/console.md): applications, a wallet search, invoices and
// payments across every wallet, a user token to act for a wallet, and the ledger audit on demand. Reads only, on
// SqlStore (the same statements on SQLite and PostgreSQL); the audit runs on a worker thread with a read-only
// connection of its own on SQLite (start-audit.ts) so a large journal never stalls the money thread, and on the
// store's pool on PostgreSQL. The search matches without regard to case on both engines (SQLite's LIKE ignores
// ASCII case, PostgreSQL's does not): both sides are lowered.
import { decode as decodeNip19 } from 'nostr-tools/nip19'
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { TokenSigner } from '../../auth/index.js'
import type { SqlStore } from '../../store/index.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'
import type { AuditReport } from '../audit.js'
import { startAudit } from '../start-audit.js'

export interface OperatorViewsDeps {
  sql: SqlStore
  /** The SQLite database file the audit reads on a connection of its own (unused on PostgreSQL). */
  file?: string
  tokens: TokenSigner
  now(): number
}

export interface OperatorViews {
  handlers: HandlerTable
  /** Remembers an audit's verdict (the one at start) for OperatorGetAudit. */
  recordAudit(report: AuditReport, at: number): void
}

const seconds = (ms: number | null) => (ms === null ? 0 : unixSeconds(ms))
const sats = (msat: number | null) => msatAsSats(msat ?? 0)
const clampLimit = (limit: number | undefined) => Math.max(1, Math.min(500, limit ?? 50))
/** LIKE with the caller's text taken literally. */
const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, c => `\\${c}`)}%`

/** An npub is searched as the hex key it stands for; anything else as typed. */
function searchText(query: string): string {
  const trimmed = query.trim()
  if (!/^npub1[02-9ac-hj-np-z]+$/.test(trimmed)) return trimmed
  try {
    const decoded = decodeNip19(trimmed)
    return decoded.type === 'npub' ? decoded.data : trimmed
  } catch {
    return trimmed
  }
}

interface AuditMemo {
  report: AuditReport
  at: number
}

export function operatorViews({ sql, file, tokens, now }: OperatorViewsDeps): OperatorViews {
  let lastAudit: AuditMemo | undefined
  let running: Promise<AuditMemo> | undefined

  const apps = `SELECT a.id, a.name, a.nostr_public_key AS npub, a.allow_user_creation, a.created_at,
      u.balance_msat, (SELECT COUNT(*) FROM app_users au WHERE au.app_id = a.id) AS users
    FROM apps a JOIN users u ON u.id = a.owner_user_id ORDER BY a.created_at`
  const users = `SELECT u.id AS user_id, COALESCE(au.identifier, '') AS identifier,
      COALESCE(a.name, oa.name, '') AS app_name, COALESCE(a.id, oa.id, '') AS app_id,
      COALESCE(au.nostr_public_key, '') AS nostr_pub, u.balance_msat, u.locked, u.created_at
    FROM users u LEFT JOIN app_users au ON au.user_id = u.id LEFT JOIN apps a ON a.id = au.app_id
      LEFT JOIN apps oa ON oa.owner_user_id = u.id
    WHERE CAST(@q AS TEXT) IS NULL OR lower(au.identifier) LIKE @q ESCAPE '\\' OR lower(u.id) LIKE @q ESCAPE '\\'
      OR lower(au.nostr_public_key) LIKE @q ESCAPE '\\' OR lower(u.name) LIKE @q ESCAPE '\\'
    ORDER BY u.serial DESC LIMIT @limit`
  const userByIdentifier = 'SELECT user_id, app_id, identifier FROM app_users WHERE identifier = ?'
  // Both halves filter on their own columns; the union is sorted by time and cut to the limit.
  const payments = `SELECT * FROM (
      SELECT 'outgoing' AS direction, p.payment_hash, p.user_id, COALESCE(au.identifier, '') AS identifier,
        p.amount_msat, p.service_fee_msat, COALESCE(p.routing_fee_msat, 0) AS routing_fee_msat, p.internal,
        p.status, '' AS memo, p.created_at, p.resolved_at, p.payment_request, COALESCE(p.failure_reason, '') AS failure_reason
      FROM payments p LEFT JOIN app_users au ON au.user_id = p.user_id
      WHERE (CAST(@q AS TEXT) IS NULL OR p.payment_hash LIKE @prefix ESCAPE '\\' OR p.user_id = @exact OR au.identifier = @exact)
        AND (CAST(@status AS TEXT) IS NULL OR p.status = @status) AND p.created_at >= @since AND p.created_at < @until
      UNION ALL
      SELECT 'incoming', i.payment_hash, i.user_id, COALESCE(au.identifier, ''), i.amount_msat, 0, 0,
        COALESCE(i.paid_internally, 0),
        CASE WHEN i.paid_at IS NOT NULL THEN 'paid' WHEN i.expires_at <= @now THEN 'expired' ELSE 'unpaid' END,
        i.memo, i.created_at, i.paid_at, i.payment_request, ''
      FROM invoices i LEFT JOIN app_users au ON au.user_id = i.user_id
      WHERE (CAST(@q AS TEXT) IS NULL OR i.payment_hash LIKE @prefix ESCAPE '\\' OR i.user_id = @exact OR au.identifier = @exact)
        AND i.created_at >= @since AND i.created_at < @until
    ) AS listed WHERE CAST(@istatus AS TEXT) IS NULL OR status = @istatus ORDER BY created_at DESC LIMIT @limit`

  const auditAnswer = () => {
    if (!lastAudit) return { ran: false, ok: false, at: 0, wallets: 0, transactions: 0, wallets_total_sats: 0, problems: [] }
    const { report, at } = lastAudit
    return {
      ran: true,
      ok: report.ok,
      at: seconds(at),
      wallets: report.wallets,
      transactions: report.transactions,
      wallets_total_sats: sats(report.walletsTotalMsat),
      problems: [
        ...report.balanceMismatches.map(m => `wallet ${m.userId}: stored ${m.storedMsat} msat, journal ${m.journalMsat} msat`),
        ...report.unbalancedTransactions.map(t => `transaction ${t.id} (${t.kind} ${t.ref}) sums to ${t.sumMsat} msat`),
        ...report.paymentMismatches.map(p => `payment ${p.serial} (${p.status}): ${p.problem}`),
        ...report.invoiceMismatches.map(i => `invoice ${i.paymentHash ?? 'of no hash'}: ${i.problem}`),
      ].slice(0, 100),
    }
  }

  const handlers: HandlerTable = {
    OperatorListApps: async () => ({
      apps: (await sql.many<{ id: string; name: string; npub: string; allow_user_creation: number; created_at: number; balance_msat: number; users: number }>(apps)).map(row => ({
        id: row.id,
        name: row.name,
        npub: row.npub,
        allow_user_creation: row.allow_user_creation === 1,
        users: row.users,
        owner_balance_sats: sats(row.balance_msat),
        created_at: seconds(row.created_at),
      })),
    }),
    OperatorSearchUsers: async input => {
      const text = input.query ? searchText(input.query) : ''
      const rows = await sql.many<{
        user_id: string; identifier: string; app_name: string; app_id: string; nostr_pub: string; balance_msat: number; locked: number; created_at: number
      }>(users, { q: text ? likeContaining(text.toLowerCase()) : null, limit: clampLimit(input.limit) })
      return {
        users: rows.map(({ balance_msat, locked, created_at, ...row }) => ({ ...row, balance_sats: sats(balance_msat), locked: locked === 1, created_at: seconds(created_at) })),
      }
    },
    OperatorUserToken: async input => {
      const row = await sql.one<{ user_id: string; app_id: string; identifier: string }>(userByIdentifier, [input.identifier.trim()])
      if (!row) throw new OperationError('not_found', `no app user with the identifier ${input.identifier}`)
      const token = await tokens.userToken({ user_id: row.user_id, app_id: row.app_id, app_user_id: row.identifier })
      return { token, user_id: row.user_id, app_id: row.app_id }
    },
    OperatorListPayments: async input => {
      const q = input.query?.trim() || null
      const status = input.status ?? null
      const outgoingStatus = status === 'pending' || status === 'succeeded' || status === 'failed' ? status : null
      const rows = await sql.many<{ direction: 'incoming' | 'outgoing'; payment_hash: string; user_id: string; identifier: string; amount_msat: number; service_fee_msat: number; routing_fee_msat: number; internal: number; status: string; memo: string; created_at: number; resolved_at: number | null; payment_request: string; failure_reason: string }>(payments, {
        q,
        prefix: q ? `${q.toLowerCase().replace(/[\\%_]/g, c => `\\${c}`)}%` : null,
        exact: q,
        status: status && !outgoingStatus ? '-' : outgoingStatus,
        istatus: status,
        since: (input.since ?? 0) * 1000,
        until: input.until === undefined ? Number.MAX_SAFE_INTEGER : input.until * 1000,
        now: now(),
        limit: clampLimit(input.limit),
      })
      return {
        payments: rows.map(row => ({
          direction: row.direction,
          payment_hash: row.payment_hash,
          user_id: row.user_id,
          identifier: row.identifier,
          amount_sats: sats(row.amount_msat),
          service_fee_sats: sats(row.service_fee_msat),
          routing_fee_sats: sats(row.routing_fee_msat),
          internal: row.internal === 1,
          status: row.status,
          memo: row.memo,
          created_at: seconds(row.created_at),
          resolved_at: seconds(row.resolved_at),
          payment_request: row.payment_request,
          failure_reason: row.failure_reason,
        })),
      }
    },
    OperatorGetAudit: async () => auditAnswer(),
    OperatorRunAudit: async () => {
      // One audit at a time: a second click while one runs waits for the same verdict.
      running ??= startAudit({ sql, ...(file === undefined ? {} : { file }), backgroundAboveEntries: 0 })
        .then(audit => audit.report)
        .then(report => (lastAudit = { report, at: now() }))
        .finally(() => (running = undefined))
      await running
      return auditAnswer()
    },
  }
  return {
    handlers,
    recordAudit(report, at) {
      lastAudit = { report, at }
    },
  }
}
