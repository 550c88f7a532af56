// Whether the optional local transcription engine is present. It is an optional peer dependency, so "installed"
// is decided at run time: the package must import (which also loads its native binding; a missing platform
// package or system library then counts as not installed, with the reason logged). Checked once at start.
import type { Logger } from 'pino'

/** The npm package of the local engine (named in the 501 detail). */
export const localEnginePackage = '@fugood/whisper.node'

/** What the registry needs to know about the engine; tests inject either answer. */
export interface LocalEngine {
  isInstalled(): boolean
}

export interface DetectEngineOptions {
  log: Logger
  /** Loads the engine package; defaults to a dynamic import of `@fugood/whisper.node`. */
  load?: () => Promise<unknown>
}

/** Tries to load the engine once and returns the fixed answer. */
export async function detectLocalEngine(opts: DetectEngineOptions): Promise<LocalEngine> {
  // A variable specifier keeps TypeScript from requiring the optional package at build time.
  const specifier: string = localEnginePackage
  const load = opts.load ?? (() => import(specifier))
  let installed: boolean
  try {
    await load()
    installed = true
  } catch (err) {
    installed = false
    const code = (err as { code?: unknown } | undefined)?.code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      opts.log.info({ package: localEnginePackage }, 'local transcription engine not installed')
    } else {
      opts.log.warn({ err, package: localEnginePackage }, 'local transcription engine is present but failed to load')
    }
  }
  return { isInstalled: () => installed }
}

/** A fixed answer, for tests and for configurations that disable the engine. */
export function fixedEngine(installed: boolean): LocalEngine {
  return { isInstalled: () => installed }
}
