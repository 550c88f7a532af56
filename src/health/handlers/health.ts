// The Health operation (`GET /api/health`): OK while the daemon can serve, ERROR with the reason otherwise.
import { type HandlerTable, OperationError } from '../../bus/index.js'

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
