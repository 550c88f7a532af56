// SIGKILL at random moments under the 'mixed' load (load-mixes.ts), part 2 of 3.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('mixed', 2, 2)
