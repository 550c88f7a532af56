// The wallet's streams: GetLiveUserOperations emits each operation on the caller's
// account with the balance after it, from the `user.operation` events the wallet itself emits. The relay transport
// forwards each item as a push under the stream's name. GetMigrationUpdate never emits: this service announces no
// migration, and upstream sends none either.
import { EMPTY, filter, map, type EventOf, type HandlerTable, type Observable, type OutputOf } from '../../bus/index.js'

export function liveStreamHandlers(operations$: Observable<EventOf<'user.operation'>>): HandlerTable {
  return {
    GetLiveUserOperations: (_input, ctx) =>
      operations$.pipe(
        filter(event => event.userId === ctx.caller.userId),
        // The upstream push carries the operation as the wallet recorded it and `latest_balance` (sats).
        map((event): OutputOf<'GetLiveUserOperations'> => ({
          operation: event.operation as OutputOf<'GetLiveUserOperations'>['operation'],
          latest_balance: event.latestBalanceSats,
        })),
      ),
    GetMigrationUpdate: () => EMPTY,
  }
}
