// The RxJS pieces the daemon uses, each from its own module. `rxjs`'s entry point requires every operator and
// observable it has (~300 CommonJS files, ~70 ms of the daemon's start on a small machine); these load only what
// they use. They are the same module instances the entry point would give, so values mix freely with libraries
// that import `rxjs` itself.
export { Observable } from 'rxjs/internal/Observable'
export { Subject } from 'rxjs/internal/Subject'
export { Subscription } from 'rxjs/internal/Subscription'
export { EMPTY } from 'rxjs/internal/observable/empty'
export { defer } from 'rxjs/internal/observable/defer'
export { from } from 'rxjs/internal/observable/from'
export { isObservable } from 'rxjs/internal/util/isObservable'
export { lastValueFrom } from 'rxjs/internal/lastValueFrom'
export { filter } from 'rxjs/internal/operators/filter'
export { map } from 'rxjs/internal/operators/map'
export { mergeMap } from 'rxjs/internal/operators/mergeMap'
export { toArray } from 'rxjs/internal/operators/toArray'
export type { Observer, OperatorFunction } from 'rxjs/internal/types'
