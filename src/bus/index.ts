// The bus's door: the dispatcher every transport feeds, the operation registry, the domain event stream, and the
// contracts handlers are written against (call context, OperationError, handler types). The bus imports no domain
// room: the composition root registers their handlers into it, so it stands beneath them in the import graph.
export {
  createDispatcher, type Authenticate, type Call, type CallOutcome, type CallTimings, type Dispatcher, type DispatcherDeps,
} from './dispatcher.js'
export { createRegistry, type Registry, type RegisteredOperation } from './registry.js'
export {
  createEventBus, ofType, type DomainEvent, type EventBus, type EventOf, type EventType,
} from './events.js'
export {
  systemClock, systemTimers, type Caller, type CallerFor, type CallContext, type Clock, type Credentials, type Timers,
  type Transport,
} from './context.js'
export {
  OperationError, isOperationError, detailStatus, mockDisabledReason, storeFaultReason, takeOrRefuse, type ErrorCode,
} from './errors.js'
export type { ContextOf, Handler, HandlerTable, InputOf, OutputOf, RawBody } from './handler.js'
export { createAccessLog, maxRequestIdLength, type AccessLine, type AccessLog } from './access-log.js'
export { maxInputDepth, nestedDeeperThan } from './input-depth.js'
export { knownFieldsBeside, likelyMeant, unknownFields } from './unknown-fields.js'
export {
  EMPTY, Observable, Subject, Subscription, defer, filter, from, isObservable, lastValueFrom, map, mergeMap, toArray,
  type Observer, type OperatorFunction,
} from '../vendor/rxjs.js'
