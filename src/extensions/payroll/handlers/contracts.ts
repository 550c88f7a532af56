// Operator routes on contracts (docs/payroll.md, "Contracts"). The bus has checked each field's shape; these check
// what needs the stored contract or the host: wallets exist and differ, the currency can be priced, `manual` has a
// rate, total_periods is not below periods_done. A refusal names the field.
import { OperationError, type HandlerTable } from '../../../bus/index.js'
import type { Contract, ContractTerms } from '../contracts-store.js'
import { payNow } from '../pay-now.js'
import { isFourDigitYear, paydayOf } from '../paydays.js'
import type { PayrollRoom } from '../payroll-room.js'
import { resumeContract } from '../resume.js'
import { contractAsWire, payoutAsWire } from './wire.js'

export function contractHandlers(room: PayrollRoom): HandlerTable {
  const { contracts, locks, clock } = room

  const found = async (id: string): Promise<Contract> => {
    const contract = await contracts.get(id)
    if (!contract) throw new OperationError('not_found', 'Contract not found.')
    return contract
  }

  /** The rules of a whole set of terms; `changed` limits the wallet look-ups to the wallets being set. */
  const checkTerms = async (terms: ContractTerms, periodsDone: number, changed: Partial<Record<keyof ContractTerms, unknown>>) => {
    const refuse = (field: string, message: string) => new OperationError('invalid_input', `${field}: ${message}`)
    for (const field of ['employeeWallet', 'sourceWallet'] as const) {
      if (changed[field] !== undefined && !(await room.wallets.get(terms[field]))) {
        throw refuse(field === 'employeeWallet' ? 'employee_wallet' : 'source_wallet', 'no wallet with this id')
      }
    }
    if (terms.sourceWallet === terms.employeeWallet) throw refuse('source_wallet', 'must differ from employee_wallet')
    if (terms.currency !== 'sat' && !room.rates.knownCurrency(terms.currency)) {
      throw refuse('currency', `${terms.currency} is not a currency relaypay can price`)
    }
    if (terms.pricingMode === 'manual' && terms.manualRate === null) {
      throw refuse('manual_rate', 'is required when pricing_mode is "manual"')
    }
    if (terms.totalPeriods < periodsDone) throw refuse('total_periods', `must not be below periods_done (${periodsDone})`)
    if (!isFourDigitYear(paydayOf(terms.startDate, terms.frequency, terms.totalPeriods - 1))) {
      throw refuse('total_periods', 'the last payday would fall after 9999-12-31')
    }
  }

  return {
    PayrollContractList: async () => (await contracts.list()).map(contractAsWire),

    PayrollContractCreate: async input => {
      const terms: ContractTerms = {
        name: input.name,
        employeeWallet: input.employee_wallet,
        sourceWallet: input.source_wallet,
        amount: input.amount,
        currency: input.currency,
        frequency: input.frequency,
        startDate: input.start_date,
        totalPeriods: input.total_periods,
        pricingMode: input.pricing_mode,
        manualRate: input.manual_rate,
        backfill: input.backfill,
      }
      await checkTerms(terms, 0, terms)
      return contractAsWire(await contracts.create(room.newId(), terms, clock.now()))
    },

    PayrollContractGet: async input => contractAsWire(await found(input.id)),

    PayrollContractUpdate: async input =>
      locks.with(input.id, async () => {
        const contract = await found(input.id)
        const changes: Partial<ContractTerms> = {
          name: input.name,
          employeeWallet: input.employee_wallet,
          sourceWallet: input.source_wallet,
          amount: input.amount,
          currency: input.currency,
          frequency: input.frequency,
          startDate: input.start_date,
          totalPeriods: input.total_periods,
          pricingMode: input.pricing_mode,
          manualRate: input.manual_rate,
          backfill: input.backfill,
        }
        const terms = pickTerms(contract)
        for (const [key, value] of Object.entries(changes) as [keyof ContractTerms, never][]) {
          if (value !== undefined) terms[key] = value
        }
        await checkTerms(terms, contract.periodsDone, changes)
        if (!(await contracts.updateTerms(contract.id, terms, clock.now()))) {
          throw new OperationError('conflict', 'the contract changed while it was being updated; try again')
        }
        return contractAsWire(await found(contract.id))
      }),

    PayrollContractDelete: async input =>
      locks.with(input.id, async () => {
        if (!(await contracts.delete((await found(input.id)).id))) throw new OperationError('not_found', 'Contract not found.')
        return { success: true }
      }),

    PayrollContractPause: async input =>
      locks.with(input.id, async () => {
        const contract = await found(input.id)
        if (contract.status === 'paused') throw new OperationError('invalid_input', 'contract is already paused')
        // An operator's pause leaves paused_reason empty: on resume, missed paydays are written off.
        await contracts.pause(contract.id, '', clock.now())
        return contractAsWire(await found(contract.id))
      }),

    PayrollContractResume: async input =>
      locks.with(input.id, async () => contractAsWire(await resumeContract(room, await found(input.id), input.catch_up))),

    PayrollContractPayNow: async input =>
      locks.with(input.id, async () => {
        const row = await payNow({ ...room.pay, ledger: room.ledger }, await found(input.id), {
          pricingMode: input.pricing_mode,
          manualRate: input.manual_rate,
        })
        return payoutAsWire(row)
      }),
  }
}

/** The operator-set fields of a contract, without its state. */
function pickTerms(t: ContractTerms): ContractTerms {
  return {
    name: t.name,
    employeeWallet: t.employeeWallet,
    sourceWallet: t.sourceWallet,
    amount: t.amount,
    currency: t.currency,
    frequency: t.frequency,
    startDate: t.startDate,
    totalPeriods: t.totalPeriods,
    pricingMode: t.pricingMode,
    manualRate: t.manualRate,
    backfill: t.backfill,
  }
}
