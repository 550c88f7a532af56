// The transcription room as the daemon starts it from `[models]`: the model registry and the recordings that use
// its models. Kept here so the composition root only names the room.
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import type { SqlStore } from '../store/index.js'
import type { Clock } from '../bus/index.js'
import { defaultModelsBaseUrl } from './base-url.js'
import { detectLocalEngine, fixedEngine } from './engine.js'
import { readTestCatalogue } from './catalogue-file.js'
import { createRecordings } from './recordings.js'
import { createModelRegistry } from './registry.js'
import { createTranscriber, importLocalEngine } from './transcriber.js'

export async function startModelRoom(
  config: Config['models'],
  deps: { sql: SqlStore; dataDir: string; clock: Clock; random(bytes: number): Uint8Array; log: Logger; env: NodeJS.ProcessEnv },
) {
  const { sql, dataDir, clock, log } = deps
  const models = createModelRegistry({
    sql,
    dataDir,
    baseUrl: config.base_url ?? defaultModelsBaseUrl(deps.env),
    engine: config.engine === 'auto' ? await detectLocalEngine({ log }) : fixedEngine(config.engine === 'assume_installed'),
    clock,
    log,
    stallTimeoutMs: config.stall_timeout_seconds * 1000,
    catalogue: config.test_catalogue_file === undefined ? undefined : readTestCatalogue(config.test_catalogue_file, log),
  })
  const recordings = createRecordings({
    sql,
    dataDir,
    models,
    transcriber: createTranscriber({ loadEngine: importLocalEngine, log, timeoutMs: config.transcription_timeout_seconds * 1000 }),
    clock,
    random: deps.random,
    log,
  })
  return { models, recordings }
}
