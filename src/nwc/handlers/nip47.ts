// The NIP-47 methods as catalogue operations (contract/operations.ts), each with its params typed there: the
// room's kind-23194 codec turns a request into one of these calls, authentication has already found the connection
// (caller kind nwc: the right client key, live, allowed the method), and the method itself runs here. The request
// event's id is the call's requestId: the key of the connection's budget reservation.
import { type HandlerTable, type CallContext, type Caller } from '../../bus/index.js'
import type { MethodCall, NwcMethods } from '../methods.js'
import type { ConnectionRow, NwcConnectionStore } from '../connection-store.js'
import { NwcError } from '../methods.js'

export function nip47Handlers(store: NwcConnectionStore, methods: NwcMethods): HandlerTable {
  const connectionOf = async (caller: Caller): Promise<ConnectionRow> => {
    const connection = caller.kind === 'nwc' ? await store.byId(caller.connectionId) : undefined
    if (!connection) throw new NwcError('UNAUTHORIZED', 'no such NWC connection')
    return connection
  }
  const call = async <P>(params: P, ctx: CallContext): Promise<MethodCall<P>> => ({
    connection: await connectionOf(ctx.caller),
    requestId: ctx.requestId,
    params,
  })
  return {
    NwcPayInvoice: async (input, ctx) => methods.pay_invoice(await call(input, ctx)),
    NwcMakeInvoice: async (input, ctx) => methods.make_invoice(await call(input, ctx)),
    NwcLookupInvoice: async (input, ctx) => methods.lookup_invoice(await call(input, ctx)),
    NwcListTransactions: async (input, ctx) => methods.list_transactions(await call(input, ctx)),
    NwcGetBalance: async (input, ctx) => methods.get_balance(await call(input, ctx)),
    NwcGetInfo: async (input, ctx) => methods.get_info(await call(input, ctx)),
  }
}
