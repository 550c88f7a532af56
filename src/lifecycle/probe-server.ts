// The HTTP server, started before the rooms are built: a service manager sees "alive, not ready" during a long
// start (migrations, waiting for LND) instead of a refused connection, and a port in use fails the start at once.
// Catalogue routes answer "the daemon is starting" until the daemon attaches its dispatcher.
import type { Logger } from 'pino'
import type { CatalogueEntry } from '../../schema/catalogue.js'
import type { Config } from '../config/index.js'
import type { Probes } from '../health/index.js'
import { startHttpServer, type HttpServer } from '../transports/http/index.js'
import type { AccessLog } from '../bus/index.js'

export function startProbeServer(config: Config, catalogue: readonly CatalogueEntry[], probes: Probes, log: Logger, accessLog?: AccessLog): Promise<HttpServer> {
  return startHttpServer({
    host: config.http.host,
    port: config.http.port,
    maxBodyBytes: config.http.max_body_bytes,
    guestMaxBodyBytes: config.http.guest_max_body_bytes,
    guestBudget: { perMinute: config.http.guest_requests_per_minute, burst: config.http.guest_burst },
    headersTimeoutMs: config.http.headers_timeout_seconds * 1000,
    requestTimeoutMs: config.http.request_timeout_seconds * 1000,
    catalogue,
    log,
    accessLog,
    probes: { '/healthz': probes.alive, '/readyz': probes.ready },
  })
}
