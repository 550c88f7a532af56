// SIGKILL at random moments under the 'burst' load (load-mixes.ts), part 1 of 2.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('burst', 1, 12)
