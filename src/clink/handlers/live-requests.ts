// The CLINK room's streams: GetLiveDebitRequests and GetLiveManageRequests emit each debit or manage request parked
// for the caller's decision, from the `user.push` events this room emits when it parks one (debit-requests.ts,
// manage.ts). The relay transport forwards each item as a push under the stream's name.
import { filter, map, ofType, type DomainEvent, type HandlerTable, type Observable, type OutputOf } from '../../bus/index.js'

export function liveRequestHandlers(events$: Observable<DomainEvent>): HandlerTable {
  // The payload is built by the part that parks the request, in the stream's output shape.
  const parkedFor = <S extends 'GetLiveDebitRequests' | 'GetLiveManageRequests'>(stream: S, userId: string) =>
    events$.pipe(
      ofType('user.push'),
      filter(event => event.stream === stream && event.userId === userId),
      map(event => event.payload as OutputOf<S>),
    )
  return {
    GetLiveDebitRequests: (_input, ctx) => parkedFor('GetLiveDebitRequests', ctx.caller.userId),
    GetLiveManageRequests: (_input, ctx) => parkedFor('GetLiveManageRequests', ctx.caller.userId),
  }
}
