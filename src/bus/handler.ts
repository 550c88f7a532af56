// Handler types derived from the catalogue: a wrong input field or a wrong output shape fails to compile.
import type { Observable } from 'rxjs'
import type { z } from 'zod'
import type { OperationName, OperationOf } from '../../schema/catalogue.js'
import type { CallContext, CallerFor } from './context.js'

export type InputOf<N extends OperationName> = z.output<OperationOf<N>['input']>
export type OutputOf<N extends OperationName> = z.input<OperationOf<N>['output']>
export type ContextOf<N extends OperationName> = CallContext<CallerFor<OperationOf<N>['auth']>>

/** A plain async function; streaming operations return an Observable of items instead. */
export type Handler<N extends OperationName> = (
  input: InputOf<N>,
  ctx: ContextOf<N>,
) => Promise<OutputOf<N>> | Observable<OutputOf<N>>

/** A room's handlers, keyed by operation name. */
export type HandlerTable = { [N in OperationName]?: Handler<N> }

/** Body of an operation whose catalogue entry `produces` CSV or HTML. */
export interface RawBody {
  contentType: string
  body: string
  /** Optional download name (Content-Disposition). */
  filename?: string
  /** Headers of the answer beyond its type, such as an HTML page's security policy. */
  headers?: Record<string, string>
}
