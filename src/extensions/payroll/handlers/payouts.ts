// The payout ledger as callers read it: the operator's list and CSV export, and the employee's `/my/` views, which
// show only what pays the wallet the key names.
import { OperationError, type HandlerTable, type RawBody } from '../../../bus/index.js'
import { toCsv } from '../csv.js'
import type { Payout, PayoutFilter } from '../ledger-store.js'
import type { PayrollRoom } from '../payroll-room.js'
import { contractAsWire, payoutAsWire, payoutCsvHeader, payoutCsvRow } from './wire.js'

export function payoutHandlers(room: PayrollRoom): HandlerTable {
  const { ledger } = room
  const csv = (rows: Payout[], filename: string): RawBody => ({
    contentType: 'text/csv; charset=utf-8',
    body: toCsv(payoutCsvHeader, rows.map(payoutCsvRow)),
    filename,
  })
  const mine = (walletId: string): PayoutFilter => ({ employeeWallet: walletId })

  return {
    async PayrollPayoutList(input) {
      // An id that names no row would read as an empty page, the same as the end of the ledger.
      if (input.before !== undefined && !(await ledger.get(input.before))) throw new OperationError('invalid_input', 'before: no payout has this id')
      const page = { contractId: input.contract_id, status: input.status, before: input.before, limit: input.limit }
      return (await ledger.list(page)).map(payoutAsWire)
    },
    PayrollPayoutCsv: async input =>
      csv(await ledger.list({ contractId: input.contract_id, status: input.status, since: input.since, until: input.until }), 'payouts.csv'),
    PayrollMyPayouts: async (_input, ctx) => (await ledger.list(mine(ctx.caller.walletId))).map(payoutAsWire),
    PayrollMyPayoutCsv: async (_input, ctx) => csv(await ledger.list(mine(ctx.caller.walletId)), 'my-payouts.csv'),
    PayrollMyContracts: async (_input, ctx) => (await room.contracts.listPaying(ctx.caller.walletId)).map(contractAsWire),
  }
}
