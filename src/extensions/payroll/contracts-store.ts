// Payroll contracts (reference/payroll.md "Contract"). Statements are prepared once; functions are named for
// what the caller means. periods_done only moves inside the ledger store's transactions, with the row that
// consumed the period.
import type { Db } from '../../store/index.js'
import type { Frequency } from './paydays.js'

export type PricingMode = 'payday' | 'current' | 'manual'
export type ContractStatus = 'active' | 'paused'

export interface Contract {
  id: string
  name: string
  employeeWallet: string
  sourceWallet: string
  /** Decimal text per period, in `currency`. */
  amount: string
  /** `sat` or an ISO 4217 code. */
  currency: string
  frequency: Frequency
  startDate: string
  totalPeriods: number
  /** Settled or skipped periods; the next period to pay has this index. */
  periodsDone: number
  pricingMode: PricingMode
  /** Fiat units per BTC, decimal text. */
  manualRate: string | null
  backfill: boolean
  status: ContractStatus
  /** '' unless payroll paused the contract. */
  pausedReason: string
  createdAt: number
  updatedAt: number
}

/** The fields an operator sets; the rest are the contract's state. */
export type ContractTerms = Pick<
  Contract,
  | 'name'
  | 'employeeWallet'
  | 'sourceWallet'
  | 'amount'
  | 'currency'
  | 'frequency'
  | 'startDate'
  | 'totalPeriods'
  | 'pricingMode'
  | 'manualRate'
  | 'backfill'
>

const columns = `id, name, employee_wallet AS employeeWallet, source_wallet AS sourceWallet, amount, currency, frequency,
  start_date AS startDate, total_periods AS totalPeriods, periods_done AS periodsDone, pricing_mode AS pricingMode,
  manual_rate AS manualRate, backfill, status, paused_reason AS pausedReason, created_at AS createdAt,
  updated_at AS updatedAt`

type ContractRow = Omit<Contract, 'backfill'> & { backfill: 0 | 1 }

export type ContractsStore = ReturnType<typeof contractsStore>

export function contractsStore(db: Db) {
  const insert = db.prepare(`INSERT INTO payroll_contracts (id, name, employee_wallet, source_wallet, amount, currency,
      frequency, start_date, total_periods, periods_done, pricing_mode, manual_rate, backfill, status, paused_reason,
      created_at, updated_at)
    VALUES (@id, @name, @employeeWallet, @sourceWallet, @amount, @currency, @frequency, @startDate, @totalPeriods, 0,
      @pricingMode, @manualRate, @backfill, 'active', '', @now, @now)`)
  const byId = db.prepare(`SELECT ${columns} FROM payroll_contracts WHERE id = ?`)
  const all = db.prepare(`SELECT ${columns} FROM payroll_contracts ORDER BY created_at DESC, id`)
  const byEmployee = db.prepare(`SELECT ${columns} FROM payroll_contracts WHERE employee_wallet = ? ORDER BY created_at DESC, id`)
  const withPeriodsLeft = db.prepare(`SELECT id FROM payroll_contracts
    WHERE status = 'active' AND periods_done < total_periods ORDER BY created_at, id`).pluck()
  const updateTerms = db.prepare(`UPDATE payroll_contracts SET name = @name, employee_wallet = @employeeWallet,
      source_wallet = @sourceWallet, amount = @amount, currency = @currency, frequency = @frequency,
      start_date = @startDate, total_periods = @totalPeriods, pricing_mode = @pricingMode, manual_rate = @manualRate,
      backfill = @backfill, updated_at = @now
    WHERE id = @id AND periods_done <= @totalPeriods`)
  const remove = db.prepare('DELETE FROM payroll_contracts WHERE id = ?')
  const setPaused = db.prepare(`UPDATE payroll_contracts SET status = 'paused', paused_reason = @reason, updated_at = @now
    WHERE id = @id AND status = 'active'`)

  const read = (row: ContractRow | undefined): Contract | undefined => row && { ...row, backfill: row.backfill === 1 }

  return {
    create(id: string, terms: ContractTerms, now: number): Contract {
      insert.run({ ...terms, id, backfill: terms.backfill ? 1 : 0, now })
      return read(byId.get(id) as ContractRow)!
    },
    get: (id: string): Contract | undefined => read(byId.get(id) as ContractRow | undefined),
    list: (): Contract[] => (all.all() as ContractRow[]).map(row => read(row)!),
    /** The contracts paying `walletId` (the `/my/` routes). */
    listPaying: (walletId: string): Contract[] => (byEmployee.all(walletId) as ContractRow[]).map(row => read(row)!),
    /** Ids of the active contracts with periods left: the ones a tick looks at. */
    activeIdsWithPeriodsLeft: (): string[] => withPeriodsLeft.all() as string[],
    /** False when the contract is gone or already has more periods done than `totalPeriods`. */
    updateTerms(id: string, terms: ContractTerms, now: number): boolean {
      return updateTerms.run({ ...terms, id, backfill: terms.backfill ? 1 : 0, now }).changes === 1
    },
    delete: (id: string): boolean => remove.run(id).changes === 1,
    /**
     * Pauses an active contract. `reason` is '' for an operator's pause and names the period and cause when
     * payroll pauses it (seed state table). False when it was not active.
     */
    pause: (id: string, reason: string, now: number): boolean => setPaused.run({ id, reason, now }).changes === 1,
  }
}
