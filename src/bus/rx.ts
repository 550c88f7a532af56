// The RxJS pieces the daemon uses, from the library's public entry point (its `internal/` paths are not part of
// its interface and may move in any release). Rooms take them from the bus's door.
export {
  EMPTY, Observable, Subject, Subscription, defer, filter, from, isObservable, lastValueFrom, map, mergeMap, toArray,
  type Observer, type OperatorFunction,
} from 'rxjs'
