// RxJS, the pieces the daemon uses, from the library's public entry point (its `internal/` paths are not part of its
// interface and may move in any release). Bundled into one file at build (docs/architecture.md, "Packages bundled
// at build"): Node loads RxJS's CommonJS build as 223 modules.
export {
  EMPTY, Observable, Subject, Subscription, defer, filter, from, isObservable, lastValueFrom, map, mergeMap, toArray,
  type Observer, type OperatorFunction,
} from 'rxjs'
