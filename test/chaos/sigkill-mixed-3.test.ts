// SIGKILL at random moments under the 'mixed' load (load-mixes.ts), part 3 of 3.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('mixed', 3, 3)
