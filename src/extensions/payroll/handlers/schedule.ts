// Calendars (docs/payroll.md, "Paydays"): a preview before any contract exists, a contract's remaining
// paydays, and the operator's "run a scheduler pass now".
import { OperationError, type HandlerTable } from '../../../bus/index.js'
import { isFourDigitYear, scheduleOf } from '../paydays.js'
import type { PayrollRoom } from '../payroll-room.js'
import { payoutAsWire } from './wire.js'

export function scheduleHandlers(room: PayrollRoom): HandlerTable {
  return {
    PayrollSchedulePreview: async input => {
      const schedule = scheduleOf(input.start_date, input.frequency, 0, input.total_periods)
      if (schedule.ends_on !== null && !isFourDigitYear(schedule.ends_on)) {
        throw new OperationError('invalid_input', 'total_periods: the last payday would fall after 9999-12-31')
      }
      return schedule
    },
    PayrollContractSchedule: async input => {
      const contract = await room.contracts.get(input.id)
      if (!contract) throw new OperationError('not_found', 'Contract not found.')
      return scheduleOf(contract.startDate, contract.frequency, contract.periodsDone, contract.totalPeriods)
    },
    PayrollSchedulerTick: async () => {
      const result = await room.scheduler.tickNow()
      return { contracts: result.contracts, payouts: result.payouts.map(payoutAsWire) }
    },
  }
}
