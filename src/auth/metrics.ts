// Metrics: the metrics token, falling back to the admin token; over Nostr the enrolled admin pubkey.
import { OperationError, type Caller } from '../bus/index.js'
import { bearerValue, type Credentials } from './credentials.js'
import { sameSecret } from './secret-compare.js'
import { enrolledAdmin, type AdminAuthDeps } from './admin.js'

export interface MetricsAuthDeps extends AdminAuthDeps {
  metricsToken?: string
}

export function authenticateMetrics(creds: Credentials, deps: MetricsAuthDeps): Extract<Caller, { kind: 'metrics' }> {
  if (creds.nostr) {
    return { kind: 'metrics', operatorId: enrolledAdmin(creds.nostr.pubkey, deps, 'Metrics unavailable'), appId: creds.nostr.appId }
  }
  const token = bearerValue(creds.authorization)
  if (!token) throw new OperationError('unauthenticated', 'metrics header not found')
  const expected = deps.metricsToken ?? deps.adminToken
  if (!sameSecret(token, expected)) throw new OperationError('unauthenticated', 'metrics token invalid')
  return { kind: 'metrics', operatorId: 'http_operator', appId: '' }
}
