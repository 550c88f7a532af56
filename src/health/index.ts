// The Health probe (`GET /api/health`): answers OK while the daemon can serve, ERROR with the reason otherwise.
// The service-manager probes (`/healthz`, `/readyz`) are in probes.ts.
import { type HandlerTable, OperationError } from '../bus/index.js'

export { createProbes, type Probes, type CheckResult, type CheckName, type ProbeAnswer } from './probes.js'

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
