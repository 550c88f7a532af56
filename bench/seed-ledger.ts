// Bench-only seeding: fills a fresh data dir with many wallets and a long history of internal payments, written
// with direct SQL in one transaction (seconds, where the API would take an hour), yet a *valid* ledger that
// `relaypay audit` passes: every wallet is funded by a mock-balance posting, every payment has its invoice (paid
// internally), its payment row, its `payment_debit` (payer → system:lightning + fee to the app owner) and the
// payee's `invoice_credit`, and the stored balances are the journal sums.
import { randomBytes } from 'node:crypto'
import { getPublicKey } from 'nostr-tools/pure'
import { openStore } from '../src/store/index.js'

export interface SeedOptions {
  dataDir: string
  /** Wallets (app users of one app), besides the app owner. */
  users: number
  /** Stop adding payments once the journal (`ledger_entries`) holds at least this many rows. */
  ledgerEntries: number
}

export interface SeedReport {
  users: number
  payments: number
  ledgerTransactions: number
  ledgerEntries: number
  seconds: number
}

const fundingMsat = 1_000_000_000 // 1,000,000 sats per wallet: never runs out in a seeded history
const amountMsat = 100_000
const feeMsat = 10_000

export function seedLedger(opts: SeedOptions): SeedReport {
  const started = performance.now()
  const store = openStore({ dataDir: opts.dataDir, synchronous: 'normal' })
  const db = store.db
  db.pragma('synchronous = OFF') // a bench fixture: nothing to lose if the machine dies while it is written
  const hex = (bytes: number) => randomBytes(bytes).toString('hex')
  const now = Date.now()
  const st = {
    account: db.prepare('INSERT INTO accounts (id, created_at) VALUES (?, ?)'),
    user: db.prepare(`INSERT INTO users (id, account_id, name, balance_msat, admin_key, invoice_key, created_at)
                      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    app: db.prepare(`INSERT INTO apps (id, name, owner_user_id, allow_user_creation, nostr_private_key, nostr_public_key, created_at)
                     VALUES (?, ?, ?, 0, ?, ?, ?)`),
    appUser: db.prepare('INSERT INTO app_users (identifier, user_id, app_id, topic_id, created_at) VALUES (?, ?, ?, ?, ?)'),
    mock: db.prepare('INSERT INTO mock_balance_changes (user_id, from_msat, to_msat, changed_at) VALUES (?, 0, ?, ?)'),
    tx: db.prepare('INSERT INTO ledger_transactions (kind, ref, created_at) VALUES (?, ?, ?)'),
    entry: db.prepare('INSERT INTO ledger_entries (transaction_id, account, amount_msat) VALUES (?, ?, ?)'),
    invoice: db.prepare(`INSERT INTO invoices (payment_hash, payment_request, user_id, app_id, amount_msat, memo, created_at,
                           expires_at, paid_at, paid_msat, paid_internally)
                         VALUES (?, ?, ?, ?, ?, 'seed', ?, ?, ?, ?, 1)`),
    payment: db.prepare(`INSERT INTO payments (payment_hash, payment_request, user_id, fee_collector_user_id, amount_msat,
                           service_fee_msat, max_routing_fee_msat, routing_fee_msat, internal, status, preimage, created_at,
                           resolved_at)
                         VALUES (?, ?, ?, ?, ?, ?, 0, 0, 1, 'succeeded', '', ?, ?)`),
    balance: db.prepare('UPDATE users SET balance_msat = ? WHERE id = ?'),
  }
  const post = (kind: string, ref: string, legs: [string, number][]) => {
    const id = st.tx.run(kind, ref, now).lastInsertRowid
    for (const [account, amount] of legs) st.entry.run(id, account, amount)
    return legs.length
  }

  let entries = 0
  let payments = 0
  db.transaction(() => {
    const ownerId = hex(32)
    const ownerAccount = hex(16)
    st.account.run(ownerAccount, now)
    st.user.run(ownerId, ownerAccount, 'seed app (app owner)', 0, hex(32), hex(32), now)
    const appKey = randomBytes(32)
    const appId = hex(32)
    st.app.run(appId, `seed-${hex(4)}`, ownerId, appKey.toString('hex'), getPublicKey(appKey), now)

    const ids: string[] = []
    const balances: number[] = []
    for (let i = 0; i < opts.users; i++) {
      const id = hex(32)
      const account = hex(16)
      st.account.run(account, now)
      st.user.run(id, account, '', 0, hex(32), hex(32), now)
      st.appUser.run(`seed-user-${i}-${hex(4)}`, id, appId, hex(32), now)
      const serial = st.mock.run(id, fundingMsat, now).lastInsertRowid
      entries += post('mock_balance', String(serial), [[`user:${id}`, fundingMsat], ['system:mock', -fundingMsat]])
      ids.push(id)
      balances.push(fundingMsat)
    }
    let ownerBalance = 0
    for (let n = 0; entries < opts.ledgerEntries && opts.users > 1; n++) {
      const payer = n % ids.length
      const payee = (payer + 1 + (n % (ids.length - 1))) % ids.length
      if (balances[payer]! < amountMsat + feeMsat) throw new Error('seed: a wallet ran out of funding')
      const hash = hex(32)
      const request = `lnbcrt1seed${hex(60)}`
      const invoiceSerial = st.invoice.run(hash, request, ids[payee], appId, amountMsat, now, now + 3_600_000, now, amountMsat).lastInsertRowid
      const serial = st.payment.run(hash, request, ids[payer], ownerId, amountMsat, feeMsat, now, now).lastInsertRowid
      entries += post('payment_debit', String(serial), [
        [`user:${ids[payer]}`, -(amountMsat + feeMsat)],
        ['system:lightning', amountMsat],
        [`user:${ownerId}`, feeMsat],
      ])
      entries += post('invoice_credit', String(invoiceSerial), [[`user:${ids[payee]}`, amountMsat], ['system:lightning', -amountMsat]])
      balances[payer]! -= amountMsat + feeMsat
      balances[payee]! += amountMsat
      ownerBalance += feeMsat
      payments++
    }
    ids.forEach((id, i) => st.balance.run(balances[i], id))
    st.balance.run(ownerBalance, ownerId)
  })()
  const ledgerTransactions = db.prepare('SELECT COUNT(*) FROM ledger_transactions').pluck().get() as number
  db.pragma('wal_checkpoint(TRUNCATE)')
  store.close()
  return { users: opts.users, payments, ledgerTransactions, ledgerEntries: entries, seconds: round((performance.now() - started) / 1000) }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
