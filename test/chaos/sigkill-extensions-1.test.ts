// SIGKILL at random moments under the 'extensions' load (load-mixes.ts), part 1 of 2.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('extensions', 1, 10)
