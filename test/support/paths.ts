// Where the repository lives, wherever the compiled test runs from. Tests read nothing outside it: what they check
// against is in test/fixtures/.
import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The repository root (tests are compiled to build/test/…). */
export const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')
