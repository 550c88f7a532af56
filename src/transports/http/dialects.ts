// The two ways an HTTP answer is written. Payments operations speak upstream's dialect: always 200, with
// `{"status":"OK",…fields}` or `{"status":"ERROR","reason":…}`. Extension, host and model-registry operations
// speak the detail dialect: real status codes and `{"detail": …}` for errors.
import type { Dialect } from '../../../schema/operation.js'
import { OperationError, detailStatus } from '../../bus/index.js'

export interface HttpAnswer {
  status: number
  body: unknown
}

export function success(dialect: Dialect, output: unknown, status = 200): HttpAnswer {
  if (dialect === 'pub') return { status: 200, body: { status: 'OK', ...(output as object) } }
  return { status, body: output ?? null }
}

export function failure(dialect: Dialect, error: OperationError): HttpAnswer {
  if (dialect === 'pub') return { status: 200, body: { status: 'ERROR', reason: error.message } }
  return { status: error.status ?? detailStatus[error.code], body: { detail: error.message } }
}
