// Where the repository and the shared specification live, wherever the compiled test runs from.
import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The repository root (tests are compiled to build/test/…). */
export const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')
/** `../shared` beside the repository: the seeds and the reference pages. */
export const sharedDir = path.resolve(repoRoot, '..', 'shared')
