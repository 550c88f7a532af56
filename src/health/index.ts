// The Health probe (`GET /api/health`, handlers/health.ts): answers OK while the daemon can serve, ERROR with the
// reason otherwise. The service-manager probes (`/healthz`, `/readyz`) are in probes.ts.
export { createProbes, type Probes, type CheckResult, type CheckName, type ProbeAnswer } from './probes.js'
export { healthHandlers, type HealthDeps } from './handlers/health.js'
