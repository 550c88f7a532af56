// The NIP-47 methods as catalogue operations (schema/operations/nwc.ts): the relay transport's 23194
// codec turns a request into one of these calls, authentication has already found the connection (caller kind
// nwc: the right client key, live, allowed the method), and the method itself runs here. The request event's id is
// the call's requestId: the key of the connection's budget reservation.
import { type HandlerTable, type CallContext, type Caller } from '../../bus/index.js'
import type { MethodCall, NwcMethodName } from '../methods.js'
import type { ConnectionRow, NwcConnectionStore } from '../connection-store.js'
import { NwcError } from '../methods.js'

const operations: Record<string, NwcMethodName> = {
  NwcPayInvoice: 'pay_invoice',
  NwcMakeInvoice: 'make_invoice',
  NwcLookupInvoice: 'lookup_invoice',
  NwcListTransactions: 'list_transactions',
  NwcGetBalance: 'get_balance',
  NwcGetInfo: 'get_info',
}

export function nip47Handlers(
  store: NwcConnectionStore,
  methods: Record<NwcMethodName, (call: MethodCall) => Promise<object>>,
): HandlerTable {
  const connectionOf = async (caller: Caller): Promise<ConnectionRow> => {
    const connection = caller.kind === 'nwc' ? await store.byId(caller.connectionId) : undefined
    if (!connection) throw new NwcError('UNAUTHORIZED', 'no such NWC connection')
    return connection
  }
  return Object.fromEntries(
    Object.entries(operations).map(([op, method]) => [
      op,
      async (input: Record<string, unknown>, ctx: CallContext) =>
        methods[method]({ connection: await connectionOf(ctx.caller), requestId: ctx.requestId, params: input ?? {} }),
    ]),
  ) as HandlerTable
}
