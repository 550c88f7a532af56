// SIGKILL at random moments under the 'mixed' load (load-mixes.ts).
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('mixed', 12, 1)
