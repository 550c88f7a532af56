// A pino logger whose level can change while the daemon runs (SIGHUP). Pino copies the level into each child when
// it is made, so changing the root alone would leave every room's logger as it was: every child is remembered
// (weakly: per-call children come and go) and set too.
import type { Level, Logger } from 'pino'
import { createLogger, type LogStyle } from '../logging/index.js'

export interface LevelledLogger {
  log: Logger
  setLevel(level: Level | 'silent'): void
}

export function levelledLogger(level: Level | 'silent', base: Record<string, unknown>, style?: LogStyle): LevelledLogger {
  const children = new Set<WeakRef<Logger>>()
  // Dead references are dropped when the set has doubled since the last sweep, so per-call children cannot pile up.
  let sweepAt = 1024
  const remember = (child: Logger) => {
    children.add(new WeakRef(child))
    if (children.size < sweepAt) return
    for (const ref of children) if (!ref.deref()) children.delete(ref)
    sweepAt = Math.max(1024, children.size * 2)
  }
  const log = createLogger({ level, base, onChild: remember }, style)
  return {
    log,
    setLevel: next => {
      log.level = next
      for (const ref of children) {
        const child = ref.deref()
        if (child) child.level = next
        else children.delete(ref)
      }
    },
  }
}
