// Payroll contracts (docs/payroll.md, "Contracts"), written once on the engine-neutral SqlStore: the same
// statements on SQLite and PostgreSQL; functions are named for what the caller means. periods_done only moves
// inside the ledger store's transactions, with the row that consumed the period.
import type { SqlStore } from '../../store/index.js'
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

// Aliases are quoted: PostgreSQL folds unquoted names to lower case.
const columns = `id, name, employee_wallet AS "employeeWallet", source_wallet AS "sourceWallet", amount, currency,
  frequency, start_date AS "startDate", total_periods AS "totalPeriods", periods_done AS "periodsDone",
  pricing_mode AS "pricingMode", manual_rate AS "manualRate", backfill, status, paused_reason AS "pausedReason",
  created_at AS "createdAt", updated_at AS "updatedAt"`

type ContractRow = Omit<Contract, 'backfill'> & { backfill: 0 | 1 }

const insert = `INSERT INTO payroll_contracts (id, name, employee_wallet, source_wallet, amount, currency, frequency,
    start_date, total_periods, periods_done, pricing_mode, manual_rate, backfill, status, paused_reason, created_at,
    updated_at)
  VALUES (@id, @name, @employeeWallet, @sourceWallet, @amount, @currency, @frequency, @startDate, @totalPeriods, 0,
    @pricingMode, @manualRate, @backfill, 'active', '', @now, @now)
  RETURNING ${columns}`
const byId = `SELECT ${columns} FROM payroll_contracts WHERE id = ?`
const all = `SELECT ${columns} FROM payroll_contracts ORDER BY created_at DESC, id`
const byEmployee = `SELECT ${columns} FROM payroll_contracts WHERE employee_wallet = ? ORDER BY created_at DESC, id`
const withPeriodsLeft = `SELECT id FROM payroll_contracts
  WHERE status = 'active' AND periods_done < total_periods ORDER BY created_at, id`
const updateTerms = `UPDATE payroll_contracts SET name = @name, employee_wallet = @employeeWallet,
    source_wallet = @sourceWallet, amount = @amount, currency = @currency, frequency = @frequency,
    start_date = @startDate, total_periods = @totalPeriods, pricing_mode = @pricingMode, manual_rate = @manualRate,
    backfill = @backfill, updated_at = @now
  WHERE id = @id AND periods_done <= @totalPeriods`
const remove = 'DELETE FROM payroll_contracts WHERE id = ?'
const setPaused = `UPDATE payroll_contracts SET status = 'paused', paused_reason = @reason, updated_at = @now
  WHERE id = @id AND status = 'active'`

/** The row as callers see it: backfill is stored 0/1 on both engines. */
export const contractOfRow = (row: ContractRow): Contract => ({ ...row, backfill: row.backfill === 1 })

const termsParams = (terms: ContractTerms) => ({
  name: terms.name,
  employeeWallet: terms.employeeWallet,
  sourceWallet: terms.sourceWallet,
  amount: terms.amount,
  currency: terms.currency,
  frequency: terms.frequency,
  startDate: terms.startDate,
  totalPeriods: terms.totalPeriods,
  pricingMode: terms.pricingMode,
  manualRate: terms.manualRate,
  backfill: terms.backfill ? 1 : 0,
})

export interface ContractsStore {
  create(id: string, terms: ContractTerms, now: number): Promise<Contract>
  get(id: string): Promise<Contract | undefined>
  list(): Promise<Contract[]>
  /** The contracts paying `walletId` (the `/my/` routes). */
  listPaying(walletId: string): Promise<Contract[]>
  /** Ids of the active contracts with periods left: the ones a tick looks at. */
  activeIdsWithPeriodsLeft(): Promise<string[]>
  /** False when the contract is gone or already has more periods done than `totalPeriods`. */
  updateTerms(id: string, terms: ContractTerms, now: number): Promise<boolean>
  delete(id: string): Promise<boolean>
  /**
   * Pauses an active contract. `reason` is '' for an operator's pause and names the period and cause when
   * payroll pauses it; resume tells the two apart. False when it was not active.
   */
  pause(id: string, reason: string, now: number): Promise<boolean>
}

export function contractsStore(sql: SqlStore): ContractsStore {
  return {
    async create(id, terms, now) {
      return contractOfRow((await sql.one<ContractRow>(insert, { ...termsParams(terms), id, now }))!)
    },
    async get(id) {
      const row = await sql.one<ContractRow>(byId, [id])
      return row && contractOfRow(row)
    },
    list: async () => (await sql.many<ContractRow>(all)).map(contractOfRow),
    listPaying: async walletId => (await sql.many<ContractRow>(byEmployee, [walletId])).map(contractOfRow),
    activeIdsWithPeriodsLeft: async () => (await sql.many<{ id: string }>(withPeriodsLeft)).map(row => row.id),
    updateTerms: async (id, terms, now) => (await sql.run(updateTerms, { ...termsParams(terms), id, now })).changes === 1,
    delete: async id => (await sql.run(remove, [id])).changes === 1,
    pause: async (id, reason, now) => (await sql.run(setPaused, { id, reason, now })).changes === 1,
  }
}
