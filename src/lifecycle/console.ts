// The operator console when `[console] enabled`: the admin token it signs in with, and what its overview shows
// that no operation tells (backend, network, mock mode, relay links, the embedded relay against its limits).
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import { createConsole, type Console, type ConsoleOptions } from '../console/index.js'

type Live = Omit<ReturnType<ConsoleOptions['about']>, 'backend' | 'network'>

export function consoleFor(config: Config, adminToken: string, log: Logger, live: () => Live): Console | undefined {
  if (!config.console.enabled) return undefined
  return createConsole({
    adminToken,
    metricsToken: config.auth.metrics_token,
    config: config.console,
    log: log.child({ room: 'console' }),
    about: () => ({ backend: config.node.backend, network: config.node.network, ...live() }),
  })
}
