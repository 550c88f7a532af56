// Where LND is, from the `[node]` keys and the upstream env names. Kept apart from the gRPC client so that reading
// the config does not load the `lightning` package (~800 modules, most of the daemon's import time) when the
// embedded node runs.
import type { LndConnectionConfig } from '../lightning-node.js'

/** LND's default gRPC listener (lnd.conf rpclisten); `localhost` matches the name in LND's own certificate. */
export const defaultLndSocket = 'localhost:10009'

/**
 * The connection from the `[node]` keys, falling back to the upstream env names (LND_ADDRESS, LND_CERT_PATH,
 * LND_MACAROON_PATH) for each key left unset. Throws one line when no macaroon is named anywhere.
 */
export function resolveLndConnection(
  configured: { socket?: string; certPath?: string; macaroonPath?: string },
  env: Readonly<Record<string, string | undefined>>,
): LndConnectionConfig {
  const socket = configured.socket ?? env.LND_ADDRESS ?? defaultLndSocket
  const certPath = configured.certPath ?? env.LND_CERT_PATH
  const macaroonPath = configured.macaroonPath ?? env.LND_MACAROON_PATH
  if (!macaroonPath) {
    throw new Error('[node] backend = "lnd" needs a macaroon: set [node] lnd_macaroon_path (or LND_MACAROON_PATH)')
  }
  return { socket, macaroonPath, ...(certPath ? { certPath } : {}) }
}
