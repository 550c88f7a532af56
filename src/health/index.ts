// The Health probe (`GET /api/health`): answers OK while the daemon can serve, ERROR with the reason otherwise.
import type { HandlerTable } from '../bus/handler.js'
import { OperationError } from '../bus/errors.js'

export interface HealthDeps {
  /** Undefined when ready; otherwise why not (upstream answers `not ready` / `not synced`). */
  notReadyReason(): Promise<string | undefined>
}

export function healthHandlers(deps: HealthDeps): HandlerTable {
  return {
    Health: async () => {
      const reason = await deps.notReadyReason()
      if (reason) throw new OperationError('node_unavailable', reason)
      return {}
    },
  }
}
